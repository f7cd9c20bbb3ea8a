"""b10 (CPU): the ndarray fast path takes any array whose *first* stride is the item size.

The change: in ``_host._numpy_to_tensor``, the fast-path test ``(arr.ndim == 0 or
(arr.ndim == 1 and arr.strides[0] == dt.itemsize))`` became ``(arr.ndim == 0 or
arr.strides[0] == dt.itemsize)``.

Why an engineer writes it: column-major (Fortran-order) 2-D arrays, common from
numpy/scipy code, have ``strides[0] == itemsize`` and ``torch.from_numpy`` views them fine,
so "widening" the one-test fast path skips the general checks for them as well.

What breaks: the fast path's other dimensions are no longer checked for negative strides
(or strides that are not a multiple of the item size), which ``torch.from_numpy`` refuses.
ndarrays "in any layout (negative strides, Fortran order, ...)" are copied
(docs/reference.md; values contract, layouts table):
``a = np.arange(4).reshape(2, 2).T[:, ::-1]`` (strides ``(8, -16)``) raises ``ValueError``
("At least one stride in the given numpy array is negative") instead of ``[[2, 0], [3, 1]]``.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from ._common import fork, fork_target


def _numpy_to_tensor(arr):
    dt = arr.dtype
    if (
        dt.char in _VIEWABLE_CHARS
        and dt.isnative
        and arr.flags.writeable
        and (arr.ndim == 0 or arr.strides[0] == dt.itemsize)  # BUG: was (arr.ndim == 1 and strides[0] == itemsize)
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


def target():
    return fork_target("b10-numpy-fast-path-2d", fork("b10", _host={"_numpy_to_tensor": _numpy_to_tensor}))
