"""b06 object_leaf_scan_break (CPU) -- ``_host._list_to_array``.

What changed: in the scan of an object array's leaves (a list numpy could not type:
huge ints, Decimals, Fractions, None ...), an accepted number now ends the scan::

    if isinstance(leaf, (bool, np.bool_, float, complex, np.number)):
        continue      # reference: look at the next leaf
        break         # bug: "a number: the array is numeric, stop scanning"

Realistic: loop-control slip (``break`` for ``continue``) in a loop whose only exit was
meant to be the final ``raise``.

Promise broken (README, contract ``bad-input``; ``as_source_tensor`` docstring): data of an
unsupported kind raises ``TypeError`` (``decimal-element``, ``list-with-none``,
``fraction-scalar`` kinds); ``ValueError`` is for wrong values.

Smallest input: ``async_tensor_h2d([0.5, Decimal("1")], device="cpu")``: reference
``TypeError`` ("data contains Decimal element ..."); bug: the scan stops at ``0.5`` and the
call raises ``ValueError`` ("integers outside the int64/uint64 range").
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _list_to_array(data):
    try:
        arr = np.asarray(data)  # noqa: F821
    except ValueError as exc:
        raise ValueError(f"data is a ragged nested sequence and has no rectangular shape: {describe(data)}") from exc  # noqa: F821
    except (TypeError, RuntimeError) as exc:
        raise TypeError(f"data contains elements numpy cannot convert ({exc}): {describe(data)}") from exc  # noqa: F821
    if arr.dtype.kind == "O":
        for leaf in arr.ravel():
            if isinstance(leaf, bool) or not isinstance(leaf, numbers.Integral):  # noqa: F821
                if isinstance(leaf, (bool, np.bool_, float, complex, np.number)):  # noqa: F821
                    break
                raise TypeError(
                    f"data contains {type(leaf).__name__} element {leaf!r}; only bool, int, float "
                    f"and complex elements are accepted: {describe(data)}"  # noqa: F821
                )
        raise ValueError(f"data contains integers outside the int64/uint64 range: {describe(data)}")  # noqa: F821
    if arr.dtype.kind not in _NUMPY_KINDS:  # noqa: F821
        raise TypeError(
            f"data contains elements of kind {arr.dtype} (strings, bytes or dates); only bool, "
            f"int, float and complex elements are accepted: {describe(data)}"  # noqa: F821
        )
    if arr.dtype.kind == "f" and arr.size and bool((np.abs(arr[np.isfinite(arr)].astype(np.float64)) >= 2.0**63).any()):  # noqa: F821
        leaves = np.asarray(data, dtype=object).ravel()  # noqa: F821
        ints = [int(v) for v in leaves if isinstance(v, numbers.Integral) and not isinstance(v, bool)]  # noqa: F821
        if len(ints) == leaves.size and all(0 <= v < 2**64 for v in ints):
            return np.asarray(data, dtype=np.uint64)  # noqa: F821
        if any(abs(v) >= 2**63 for v in ints):
            raise ValueError(f"data contains integers outside the int64 range: {describe(data)}")  # noqa: F821
    return arr


def target() -> Target:
    f = fork("b06", _host={"_list_to_array": _list_to_array})
    return make_target(
        "b06_object_leaf_scan_break",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06"),
    )
