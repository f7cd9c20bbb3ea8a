"""b04 layout_copy_all_strides (CPU) -- ``_host._numpy_to_tensor``.

What changed: the test that decides whether an ndarray needs a fresh C-order copy before
``torch.from_numpy`` asks whether *all* strides are unrepresentable instead of *any*::

    if any(s < 0 or s % arr.itemsize for s in arr.strides):   # reference
    if all(s < 0 or s % arr.itemsize for s in arr.strides):   # bug

Realistic: a quantifier slip made while "avoiding needless copies" (every 1-D case, a
fully reversed array and a structured field of a 1-D array still work, so a quick test
passes).

Promise broken (reference.md, Inputs; contract ``values``): "ndarrays in any layout
(negative strides, Fortran order, ...)" are accepted and copied exactly.

Smallest input: ``async_tensor_h2d(np.arange(6, dtype=np.int32).reshape(2, 3)[:, ::-1],
device="cpu")``: reference ``[[2, 1, 0], [5, 4, 3]]``; bug: strides ``(12, -4)`` are not
*all* bad, no copy is made, and ``torch.from_numpy`` raises ``ValueError`` ("At least one
stride ... is negative") on a valid call.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _numpy_to_tensor(arr):
    dt = arr.dtype
    if (
        dt.char in _VIEWABLE_CHARS  # noqa: F821
        and dt.isnative
        and arr.flags.writeable
        and (arr.ndim == 0 or (arr.ndim == 1 and arr.strides[0] == dt.itemsize))
    ):
        return torch.from_numpy(arr)  # noqa: F821
    if arr.dtype.kind not in _NUMPY_KINDS:  # noqa: F821
        raise TypeError(
            f"data has numpy dtype {arr.dtype} (kind {arr.dtype.kind!r}); only bool, integer, "
            "floating and complex arrays can be copied to a device"
        )
    if arr.dtype.byteorder not in ("=", "|"):
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype.kind in "iu" and arr.dtype.char != np.dtype(arr.dtype.str).char:  # noqa: F821
        arr = arr.view(np.dtype(arr.dtype.str))  # noqa: F821
    if all(s < 0 or s % arr.itemsize for s in arr.strides):
        arr = np.array(arr, order="C", copy=True)  # noqa: F821
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)  # noqa: F821
        with warnings.catch_warnings():  # noqa: F821
            warnings.simplefilter("ignore", UserWarning)  # noqa: F821
            return torch.from_numpy(arr)  # noqa: F821
    except TypeError as exc:
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def target() -> Target:
    f = fork("b04", _host={"_numpy_to_tensor": _numpy_to_tensor})
    return make_target(
        "b04_layout_copy_all_strides",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04"),
    )
