"""b01 (CPU-visible, _host.py ``_list_to_array``): Decimal/Fraction elements of a list are refused with ValueError ("integers outside the int64/uint64 range") instead of TypeError.

What changed: in the scan of an object-dtype array's leaves, the tuple of "other numeric
kinds that may sit beside huge ints" ``(bool, np.bool_, float, complex, np.number)`` was
replaced by the ABC ``numbers.Number``.

Why an engineer would write it: ``numbers.Number`` reads as the one test that covers
bool, float, complex and numpy's numbers (numpy registers its scalar types with the
``numbers`` ABCs), so the five-entry tuple looks like a hand-rolled version of it. But
``decimal.Decimal`` and ``fractions.Fraction`` are ``numbers.Number`` too: the loop now
``continue``s past them and falls through to the final ``ValueError`` meant for Python
ints beyond uint64.

Promise broken: ``async_tensor_h2d`` docstring, Raises: "TypeError: ``data`` of an
unsupported kind or dtype"; docs/contracts.md bad-input table: ``decimal-element`` must
raise ``TypeError`` (``async_tensor_h2d([Decimal('1.5')], out=...)``); docs/reference.md
"Errors: TypeError (wrong kind), ValueError (wrong value) ... naming the argument". The
message now claims an integer range problem that does not exist.

Smallest input: ``async_tensor_h2d([Decimal('1.5')], device='cpu')`` (also
``[Fraction(1, 2)]``, ``[[Decimal(1)], [Decimal(2)]]``).

Reference result: ``TypeError: data contains Decimal element Decimal('1.5'); only bool,
int, float and complex elements are accepted``.
Bug result: ``ValueError: data contains integers outside the int64/uint64 range``.
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
                # BUG: was isinstance(leaf, (bool, np.bool_, float, complex, np.number)); numbers.Number
                # also admits decimal.Decimal and fractions.Fraction, which then reach the ValueError below
                if isinstance(leaf, numbers.Number):
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
        # numpy turns a mix of negative ints and ints >= 2**63 into float64 silently;
        # torch.tensor raises. Look for such ints and refuse them.
        for leaf in np.asarray(data, dtype=object).ravel():
            if isinstance(leaf, numbers.Integral) and not isinstance(leaf, bool) and abs(int(leaf)) >= 2**63:
                raise ValueError(f"data contains integers outside the int64 range: {describe(data)}")
    return arr


def target() -> Target:
    f = fork("b01", _host={"_list_to_array": _list_to_array})
    return make_target(
        "b01_list_leaf_number_abc",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
