"""b01 (CPU): 8-byte numpy integers of the ``longlong`` family are all viewed as int64.

Where: ``_host._numpy_to_tensor``, the branch for ``np.longlong`` / ``np.ulonglong``
(dtype chars ``'q'`` / ``'Q'``), which ``torch.from_numpy`` refuses. The reference views
them as their canonical type (``np.dtype(arr.dtype.str)``: ``'q'`` -> int64, ``'Q'`` ->
uint64). The bug views them as ``np.int64`` ("8-byte integers: view as int64, torch's index
type").

Why realistic: ``longlong`` reads as "the signed one", and the branch was written for the
index arrays an engine passes (int64); numpy also builds ``'Q'`` (ulonglong) arrays by
itself, for Python ints of 2**63 and up (``np.asarray([2**63]).dtype.char == 'Q'``), so a
list the docs call valid goes through it.

Smallest input: ``async_tensor_h2d([2**63], dtype=torch.uint64, device="cpu")``.
Reference: ``tensor([9223372036854775808], dtype=torch.uint64)``. Bug: the value is read
as int64 ``-2**63`` and refused, ``ValueError: data[0] = -9223372036854775808 is out of
range for torch.uint64``; with ``dtype=torch.float64`` the bug silently returns
``-9.223372036854776e18``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _numpy_to_tensor(arr):
    """View (or, for layouts torch cannot view, copy) a numpy array as a CPU tensor."""
    dt = arr.dtype
    if (
        dt.char in _VIEWABLE_CHARS
        and dt.isnative
        and arr.flags.writeable
        and (arr.ndim == 0 or (arr.ndim == 1 and arr.strides[0] == dt.itemsize))
    ):
        return torch.from_numpy(arr)
    if arr.dtype.kind not in _NUMPY_KINDS:
        raise TypeError(
            f"data has numpy dtype {arr.dtype} (kind {arr.dtype.kind!r}); only bool, integer, "
            "floating and complex arrays can be copied to a device"
        )
    if arr.dtype.byteorder not in ("=", "|"):
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype.kind in "iu" and arr.dtype.char != np.dtype(arr.dtype.str).char:
        # np.longlong / np.ulonglong: 8-byte integers torch.from_numpy refuses: view as int64
        arr = arr.view(np.int64)  # BUG: was arr.view(np.dtype(arr.dtype.str)) (uint64 for 'Q')
    if any(s < 0 or s % arr.itemsize for s in arr.strides):
        arr = np.array(arr, order="C", copy=True)
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(arr)
    except TypeError as exc:
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def target() -> Target:
    f = fork("b01", _host={"_numpy_to_tensor": _numpy_to_tensor})
    return make_target(
        "b01_ulonglong_view",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01"),
    )
