"""b07 (CPU): the uint64 rescue of lists whose ints reach 2**63 asks for positive ints, not non-negative ones: a 0 among them is refused.

Where: ``h2d_impl/_host.py::_list_to_array`` (lists and tuples whose ints reach 2**63, which numpy
turns into float64; every entry point).

Change: one comparison of the rescue's test ("none negative, all below 2**64"), written as
positive::

    if len(ints) == leaves.size and all(0 <= v < 2**64 for v in ints):        # reference

    if len(ints) == leaves.size and all(0 < v < 2**64 for v in ints):         # bug

A list of ints past int64 with a zero anywhere among them (a padding id, a first position, an
empty slot) misses the rescue and falls to the refusal meant for negative ints and floats.
Without a zero the rescue works, so a table of big ids passes until a 0 turns up.

Promise broken: docs/reference.md, Python ints past int64: "as in ``torch.tensor``, a list whose ints
reach 2**63 needs a target dtype that holds them (``[1, 2**64 - 1]`` with ``dtype=torch.uint64`` is
uint64 data; with no dtype, or beside negative ints or floats, it is refused with ``ValueError``)";
h2d_impl/_host.py ``_list_to_array``: "Ints alone, none negative, all below 2**64, are uint64 values".

Smallest input: ``async_tensor_h2d([0, 2**63], dtype=torch.uint64, device='cpu')``.
Reference: ``tensor([0, 9223372036854775808], dtype=torch.uint64)``.
Bug: ``ValueError: data contains integers outside the int64 range: [0, 9223372036854775808]``
(also with ``dtype=torch.float64``, which the reference gives ``[0., 9.2234e+18]``).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with one comparison changed; every other name resolves in the forked module.
# ruff: noqa: F821


def _list_to_array(data: Any) -> np.ndarray:
    """Build a numpy array from a (nested) list/tuple/scalar, rejecting ragged or non-numeric input."""
    try:
        arr = np.asarray(data)
    except ValueError as exc:
        raise ValueError(f"data is a ragged nested sequence and has no rectangular shape: {describe(data)}") from exc
    except (TypeError, RuntimeError) as exc:
        raise TypeError(f"data contains elements numpy cannot convert ({exc}): {describe(data)}") from exc
    if arr.dtype.kind == "O":
        for leaf in arr.ravel():
            if isinstance(leaf, bool) or not isinstance(leaf, numbers.Integral):
                if isinstance(leaf, (bool, np.bool_, float, complex, np.number)):
                    continue
                raise TypeError(
                    f"data contains {type(leaf).__name__} element {leaf!r}; only bool, int, float "
                    f"and complex elements are accepted: {describe(data)}"
                )
        raise ValueError(f"data contains integers outside the int64/uint64 range: {describe(data)}")
    if arr.dtype.kind not in _NUMPY_KINDS:
        raise TypeError(
            f"data contains elements of kind {arr.dtype} (strings, bytes or dates); only bool, "
            f"int, float and complex elements are accepted: {describe(data)}"
        )
    if arr.dtype.kind == "f" and arr.size and bool((np.abs(arr[np.isfinite(arr)].astype(np.float64)) >= 2.0**63).any()):
        leaves = np.asarray(data, dtype=object).ravel()
        ints = [int(v) for v in leaves if isinstance(v, numbers.Integral) and not isinstance(v, bool)]
        if len(ints) == leaves.size and all(0 < v < 2**64 for v in ints):  # BUG (r55 b07): positive, not non-negative
            return np.asarray(data, dtype=np.uint64)
        if any(abs(v) >= 2**63 for v in ints):
            raise ValueError(f"data contains integers outside the int64 range: {describe(data)}")
    return arr


def target() -> Target:
    f = fork("b07", _host={"_list_to_array": _list_to_array})
    return make_target(
        "b07_huge_uint_guard_excludes_zero",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b07"),
    )
