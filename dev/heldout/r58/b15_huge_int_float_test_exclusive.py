"""b15 (CPU): the test for ints numpy rounded into float64 is ``> 2**63``, so a list whose int rounds to exactly 2**63 passes as floats.

Where: ``h2d_impl/_host.py::_list_to_array`` (lists and tuples on the general route, every entry point).

Change: the bound written as "past int64" ("ints *past* 2**63 need the uint64 rescue")::

    ... bool((np.abs(arr[np.isfinite(arr)].astype(np.float64)) >= 2.0**63).any())     # reference

    ... bool((np.abs(arr[np.isfinite(arr)].astype(np.float64)) > 2.0**63).any())      # bug

The values compared are numpy's float64 images of the ints, and float64 cannot tell ``2**63`` from its neighbours:
every int from ``2**63`` to ``2**63 + 1024`` becomes exactly ``2.0**63``, which is not ``> 2**63``. Those lists skip
the rescue and the refusal and stay numpy's float64 array: ``[2**63, 1]`` (numpy builds ints past int64
beside small ints as float64) is accepted as the float list ``[9.223372e18, 1.0]`` in the default float dtype,
where ``torch.tensor`` and the reference refuse it; with ``dtype=torch.uint64``, where the reference gives the exact
``[2**63, 1]``, the exact-int rebuild meets an int past int64 (``torch.tensor(..., dtype=torch.int64)``) and refuses a valid call
with torch's ``ValueError: Overflow when unpacking long long``.

Promise broken: docs/reference.md, What it promises: "**Python ints past int64**: as in ``torch.tensor``, a list
whose ints reach 2**63 needs a target dtype that holds them (``[1, 2**64 - 1]`` with ``dtype=torch.uint64`` is uint64
data; with no dtype, or beside negative ints or floats, it is refused with ``ValueError``)".

Smallest input: ``async_tensor_h2d([2**63, 1], device='cpu')``.
Reference: ``ValueError: data[0] = ... is out of range for torch.int64 ...``. Bug: ``tensor([9.2234e+18, 1.0000e+00])``
(float32). With ``dtype=torch.uint64``: ``tensor([9223372036854775808, 1], dtype=torch.uint64)`` against
``ValueError: Overflow when unpacking long long``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: describe, _NUMPY_KINDS)


def _list_to_array(data: Any) -> np.ndarray:
    """Build a numpy array from a (nested) list/tuple/scalar, rejecting ragged or non-numeric input."""
    try:
        arr = np.asarray(data)
    except ValueError as exc:  # ragged nesting: numpy>=1.24 raises instead of making objects
        raise ValueError(f"data is a ragged nested sequence and has no rectangular shape: {describe(data)}") from exc
    except (TypeError, RuntimeError) as exc:  # e.g. bfloat16 or requires_grad tensors inside a list
        raise TypeError(f"data contains elements numpy cannot convert ({exc}): {describe(data)}") from exc
    if arr.dtype.kind == "O":
        for leaf in arr.ravel():
            if isinstance(leaf, bool) or not isinstance(leaf, numbers.Integral):
                if isinstance(leaf, (bool, np.bool_, float, complex, np.number)):
                    continue
                raise TypeError(
                    f"data contains {type(leaf).__name__} element {describe(leaf)}; only bool, int, float "
                    f"and complex elements are accepted: {describe(data)}"
                )
        raise ValueError(f"data contains integers outside the int64/uint64 range: {describe(data)}")
    if arr.dtype.kind not in _NUMPY_KINDS:
        raise TypeError(
            f"data contains elements of kind {arr.dtype} (strings, bytes or dates); only bool, "
            f"int, float and complex elements are accepted: {describe(data)}"
        )
    # BUG (r58 b15): "> 2**63": an int numpy rounded to exactly 2.0**63 is not past it
    if arr.dtype.kind == "f" and arr.size and bool((np.abs(arr[np.isfinite(arr)].astype(np.float64)) > 2.0**63).any()):
        leaves = np.asarray(data, dtype=object).ravel()
        ints = [int(v) for v in leaves if isinstance(v, numbers.Integral) and not isinstance(v, bool)]
        if len(ints) == leaves.size and all(0 <= v < 2**64 for v in ints):
            return np.asarray(data, dtype=np.uint64)
        if any(abs(v) >= 2**63 for v in ints):
            raise ValueError(f"data contains integers outside the int64 range: {describe(data)}")
    return arr


def target() -> Target:
    f = fork("b15", _host={"_list_to_array": _list_to_array})
    return make_target(
        "b15_huge_int_float_test_exclusive",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b15"),
    )
