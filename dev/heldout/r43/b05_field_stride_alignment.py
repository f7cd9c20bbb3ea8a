"""b05 (CPU): the layout test of numpy arrays checks strides against the dtype's alignment, not its item size.

Where: _host.py, ``_numpy_to_tensor``.
Change: ``any(s < 0 or s % arr.itemsize for s in arr.strides)`` -> ``any(s < 0 or s % arr.dtype.alignment for s in arr.strides)``.
Why plausible: numpy's own rule for a well-formed strided view is alignment, and for every real integer
and float dtype alignment equals the item size, so every test with a structured field of those passes.
Complex dtypes are aligned to their component (complex64: 4, complex128: 8), half their item size.
Promise broken: docs/reference.md, Inputs: "ndarrays in any layout (negative strides, Fortran order,
broadcast, non-native byte order, read-only, a structured array's field)"; async_tensor_h2d docstring:
"a numpy.ndarray in any layout".
Smallest input:
    rec = np.zeros(3, dtype=[("a", np.complex64), ("b", np.float32)]); rec["a"] = [1+1j, 2, 3j]
    async_tensor_h2d(rec["a"], device="cpu")
Reference: tensor([1.+1.j, 2.+0.j, 0.+3.j]). Bug: ValueError "given numpy array strides not a multiple of
the element byte size" (torch's, naming no argument).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full

TAG = "b05"


def _numpy_to_tensor(arr):
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
        arr = arr.view(np.dtype(arr.dtype.str))
    if any(s < 0 or s % arr.dtype.alignment for s in arr.strides):  # BUG: was `s % arr.itemsize`
        arr = np.array(arr, order="C", copy=True)
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(arr)
    except TypeError as exc:
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def _fork():
    return fork(TAG, _host={"_numpy_to_tensor": _numpy_to_tensor})


def target() -> Target:
    return fork_target_full("b05_field_stride_alignment", _fork())
