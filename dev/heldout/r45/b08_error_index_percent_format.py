"""b08 - the offending element's index is %-formatted with the index tuple as the operand.

Where: ``_host._at`` (names ``data[i, j]`` in every range / NaN / infinity refusal).

Change (old -> new)::

    return f"data[{', '.join(map(str, idx))}]" if idx else "data"
    ->
    return "data[%s]" % idx if idx else "data"  # BUG: a tuple operand is the argument list, not one value

Why an engineer writes it: a cleanup of the error helpers to printf-style formatting (lazy,
logging-like, no join); for a 1-D index ``(3,)`` it prints exactly ``data[3]``, as before,
so every 1-D test of the refusals passes. For an index of two or more dimensions ``%`` sees
several arguments for one ``%s`` and raises ``TypeError: not all arguments converted during
string formatting`` while the refusal's message is being built.

Promise broken: docs/contracts.md "bad-input" (value kinds must raise their documented
``ValueError`` with a message naming ``data``; nested lists, N-D arrays and tensors carry
them) and docs/reference.md "Errors" / "Integer targets" (``ValueError``, naming the argument).

Smallest input (CPU)::

    async_tensor_h2d([[300]], dtype=torch.int8, device="cpu")

Reference: ``ValueError: data[0, 0] = 300 is out of range for torch.int8 [-128, 127]``.
Bug: ``TypeError: not all arguments converted during string formatting`` (no argument named).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import fork, fork_target_full


def _at(idx: tuple[int, ...]) -> str:
    return "data[%s]" % idx if idx else "data"  # BUG: %-format with the tuple itself as the operand


def target() -> Target:
    return fork_target_full("b08_error_index_percent_format", fork("b08", _host={"_at": _at}))
