"""b03 (CPU): ``None`` inside a list is read as a missing value (NaN) instead of refused.

Where: ``_host._list_to_array``, the loop over the leaves of an object array. The
reference raises ``TypeError`` for any leaf that is not a bool/int/float/complex (``None``
included: bad-input kind ``list-with-none``). The bug adds one friendlier case first: a
``None`` leaf returns ``np.asarray(data, dtype=np.float64)``, so ``None`` becomes NaN
("optional logprobs and padded slots arrive as None; read them as pandas does").

Why realistic: a convenience added for one caller that sends optional floats; it turns a
programming error into silent NaNs everywhere else (and, into an integer dtype, into a
``ValueError`` about NaN instead of the ``TypeError`` about ``None``).

Smallest input: ``async_tensor_h2d([1.0, None], device="cpu")``. Reference:
``TypeError: data contains NoneType element None ...``. Bug: ``tensor([1., nan])``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _list_to_array(data):
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
                if leaf is None:  # BUG (added): a missing value (optional logprobs, padded slots): NaN
                    return np.asarray(data, dtype=np.float64)
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
        if len(ints) == leaves.size and all(0 <= v < 2**64 for v in ints):
            return np.asarray(data, dtype=np.uint64)
        if any(abs(v) >= 2**63 for v in ints):
            raise ValueError(f"data contains integers outside the int64 range: {describe(data)}")
    return arr


def target() -> Target:
    f = fork("b03", _host={"_list_to_array": _list_to_array})
    return make_target(
        "b03_none_leaf_as_nan",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03"),
    )
