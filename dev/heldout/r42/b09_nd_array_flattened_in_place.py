"""b09 (CPU): a C-contiguous N-d ndarray passed as ``data`` comes back from the call reshaped to 1-D.

Where: h2d_impl/_host.py, ``_numpy_to_tensor`` (the fast path).
Change: the fast path gains a branch for C-contiguous arrays of 2 or more dimensions:
    ``shape = arr.shape; arr.shape = (arr.size,); return torch.from_numpy(arr).view(shape)``.
Why plausible: the fast path was written for 0-d and unit-stride 1-D arrays; to let block tables
    (C-order 2-D int32 arrays) skip the general route too, the developer flattens them with
    numpy's no-copy reshape idiom (assigning ``.shape`` raises rather than copy) and views the
    tensor back. Assigning ``.shape`` reshapes the array object itself, which is the caller's.
    The result is right; the input is not left as it was.
Promise broken: docs/reference.md: "``data`` is only read: never padded, rewritten or byte-swapped in
    place"; README input-untouched: "the caller's data (every nested list, array flags, every
    storage byte) is bit-identical after any call"; as_source_tensor's docstring: "``source`` is
    a CPU tensor that may alias ``data`` and must only be read".
Smallest input:
    a = np.zeros((2, 3), dtype=np.int32); async_tensor_h2d(a, device="cpu"); a.shape
Reference: ``(2, 3)``. Bug: ``(6,)`` (the engine's next ``a[i, j] = ...`` raises ``IndexError``). 1-D,
    0-d, non-contiguous, read-only and non-native arrays are untouched.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full


def _numpy_to_tensor(arr: np.ndarray) -> torch.Tensor:
    dt = arr.dtype
    if dt.char in _VIEWABLE_CHARS and dt.isnative and arr.flags.writeable:  # noqa: F821 (the fork's)
        if arr.ndim == 0 or (arr.ndim == 1 and arr.strides[0] == dt.itemsize):
            return torch.from_numpy(arr)
        if arr.ndim > 1 and arr.flags.c_contiguous:
            shape = arr.shape
            arr.shape = (arr.size,)  # BUG: numpy's no-copy reshape, on the caller's array object itself
            return torch.from_numpy(arr).view(shape)
    if arr.dtype.kind not in _NUMPY_KINDS:  # noqa: F821
        raise TypeError(
            f"data has numpy dtype {arr.dtype} (kind {arr.dtype.kind!r}); only bool, integer, "
            "floating and complex arrays can be copied to a device"
        )
    if arr.dtype.byteorder not in ("=", "|"):
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype.kind in "iu" and arr.dtype.char != np.dtype(arr.dtype.str).char:
        arr = arr.view(np.dtype(arr.dtype.str))
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
    return fork_target_full(
        "b09_nd_array_flattened_in_place", fork("b09", _host={"_numpy_to_tensor": _numpy_to_tensor})
    )
