"""b05 - ``len()`` as the "is it empty" test in the overlap check (0-d tensors have no ``len``).

Where: ``h2d._shares_memory`` (called for every call with ``out`` on the host).

Change (old -> new)::

    or not a.numel()
    or not b.numel()
    ->
    or not len(a)  # BUG: len() of a 0-d tensor raises TypeError
    or not len(b)

Why an engineer writes it: ``not len(x)`` is the Python idiom for "empty", it reads the same
for lists, arrays and tensors, and for every 1-D and N-D test tensor it agrees with
``numel() == 0`` (a leading zero dimension). Nobody writes a 0-d ``out`` in a unit test.

Promise broken: docs/contracts.md "values" (a valid call that raises fails; scalars and 0-d
sources are valid data: docs/reference.md "Inputs": "Python and numpy scalars"), "out"
(``check_out_written_exactly``: a valid ``out`` of the data's shape, here ``()``, is written and
returned; ``prop_values_product`` includes 0-d sources by ``out=``).

Smallest input (CPU)::

    async_tensor_h2d(5, out=torch.tensor(0))

Reference: returns ``out`` holding ``tensor(5)``.
Bug: ``TypeError: len() of a 0-d tensor`` (``out`` untouched).
"""

from __future__ import annotations

from typing import Any

import torch
from h2d_contracts.contracts import Target
from plumbing import fork, fork_target_full


def _shares_memory(a: Any, b: torch.Tensor) -> bool:
    """Whether tensor ``a`` and host tensor ``b`` may touch the same host bytes (see the reference)."""
    if (
        not isinstance(a, torch.Tensor)
        or a.device.type != "cpu"
        or b.device.type != "cpu"
        or not len(a)  # BUG: len() instead of numel()
        or not len(b)
    ):
        return False
    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)  # noqa: F821
    return alo < bhi and blo < ahi


def target() -> Target:
    return fork_target_full("b05_len_as_emptiness_test", fork("b05", h2d={"_shares_memory": _shares_memory}))
