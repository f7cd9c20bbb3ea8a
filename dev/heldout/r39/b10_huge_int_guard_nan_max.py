"""b10 (CPU-visible, _host.py ``_list_to_array``): the guard against ints of 2**63 and more silently turned into float64 uses ``np.abs(arr).max()``; a NaN anywhere in the list makes the max NaN and the guard is skipped.

What changed: the test ``bool((np.abs(arr[np.isfinite(arr)].astype(np.float64)) >=
2.0**63).any())`` became ``np.abs(arr).max() >= 2.0**63``.

Why an engineer would write it: the original builds a boolean mask, a masked copy and a
float64 copy of the whole array on every float list just to look for a rare case; one
reduction does the same "with no temporaries", and infinities still trigger the leaf scan
(which finds no huge ints and passes), so tests with ``inf`` agree. ``max`` propagates
NaN, and ``nan >= 2**63`` is False: a list mixing a negative int, an int of 2**63 or
more and a NaN (a padded or masked value) is no longer refused.

Promise broken: ``as_source_tensor`` docstring, Raises: "ValueError: ... integers out of
the int64/uint64 range in a list"; the guard's own comment: "numpy turns a mix of
negative ints and ints >= 2**63 into float64 silently; torch.tensor raises. Look for such
ints and refuse them"; docs/contracts.md bad-input kind ``mixed-sign-huge-ints``
(``[-1, 9223372036854775808]``) must raise ``ValueError``; docs/reference.md "lists
follow ``torch.tensor``'s inference".

Smallest input: ``async_tensor_h2d([-1, 2**63, float('nan')], device='cpu')``.

Reference result: ``ValueError: data contains integers outside the int64 range``.
Bug result: ``tensor([-1.0000e+00, 9.2234e+18, nan])`` (float32, the huge int rounded);
without the NaN both refuse.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from h2d_contracts.contracts import Target

from ._common import buffer_utils_ns, fork, make_target


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
                    f"data contains {type(leaf).__name__} element {leaf!r}; only bool, int, float "
                    f"and complex elements are accepted: {describe(data)}"
                )
        raise ValueError(f"data contains integers outside the int64/uint64 range: {describe(data)}")
    if arr.dtype.kind not in _NUMPY_KINDS:
        raise TypeError(
            f"data contains elements of kind {arr.dtype} (strings, bytes or dates); only bool, "
            f"int, float and complex elements are accepted: {describe(data)}"
        )
    # BUG: was `bool((np.abs(arr[np.isfinite(arr)].astype(np.float64)) >= 2.0**63).any())`: one reduction, no
    # masked copy; but max() propagates NaN, and NaN >= 2**63 is False, so a NaN anywhere skips the scan
    if arr.dtype.kind == "f" and arr.size and np.abs(arr).max() >= 2.0**63:
        # numpy turns a mix of negative ints and ints >= 2**63 into float64 silently;
        # torch.tensor raises. Look for such ints and refuse them.
        for leaf in np.asarray(data, dtype=object).ravel():
            if isinstance(leaf, numbers.Integral) and not isinstance(leaf, bool) and abs(int(leaf)) >= 2**63:
                raise ValueError(f"data contains integers outside the int64 range: {describe(data)}")
    return arr


def target() -> Target:
    f = fork("b10", _host={"_list_to_array": _list_to_array})
    return make_target(
        "b10_huge_int_guard_nan_max",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
