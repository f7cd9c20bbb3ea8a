"""b06 - the set of integer dtypes is built with ``filter()``: a one-shot iterator, not a set.

Where: ``_host._INTEGER_DTYPES`` (read by ``check_representable`` on every call: it decides
whether the integer range checks run).

Change (old -> new)::

    _INTEGER_DTYPES = frozenset(
        dt for dt in SUPPORTED_DTYPES if not dt.is_floating_point and not dt.is_complex and dt is not torch.bool
    )
    ->
    _INTEGER_DTYPES = filter(  # BUG: filter() is lazy and single-use in Python 3
        lambda dt: not dt.is_floating_point and not dt.is_complex and dt is not torch.bool, SUPPORTED_DTYPES
    )

Why an engineer writes it: a readability pass replaces the generator-in-frozenset with
``filter`` (a port of the Python 2 idiom, where ``filter`` returned a list) and drops the
"redundant" wrapper; ``dtype not in _INTEGER_DTYPES`` still reads right and the first call of
any test behaves exactly as before. But ``in`` consumes the iterator: the first call whose
dtype is not an integer dtype exhausts it, and from then on every dtype is "not an integer
dtype", so no range, NaN or infinity check into an integer dtype ever runs again.

Promise broken: docs/reference.md "Integer targets" (out-of-range integers, NaN, inf and
out-of-range floats are refused with ``ValueError``), docs/contracts.md "bad-input" (value kinds
"cold and after valid calls that warm the target's caches") and "values" (``int_edges``).

Smallest input (CPU)::

    async_tensor_h2d([1.5], device="cpu")                   # any non-integer target first
    async_tensor_h2d([300], dtype=torch.int8, device="cpu")

Reference: the second call raises ``ValueError: data[0] = 300 is out of range for torch.int8``.
Bug: it returns ``tensor([44], dtype=torch.int8)`` (wrapped silently).
"""

from __future__ import annotations

import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl._host import SUPPORTED_DTYPES
from plumbing import fork, fork_target_full


def _integer_dtypes():
    # BUG: filter() instead of frozenset(...): one pass, then empty (a fresh one per target, as at import)
    return filter(
        lambda dt: not dt.is_floating_point and not dt.is_complex and dt is not torch.bool, SUPPORTED_DTYPES
    )


def target() -> Target:
    return fork_target_full(
        "b06_integer_dtypes_one_shot_filter", fork("b06", _host={"_INTEGER_DTYPES": _integer_dtypes()})
    )
