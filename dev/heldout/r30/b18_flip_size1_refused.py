"""Negative-stride arrays are made contiguous with ``np.ascontiguousarray``, which keeps size-1 flips as they are.

The fresh C-order copy of ``_numpy_to_tensor`` (``np.array(arr, order="C", copy=True)``)
is "simplified" to ``np.ascontiguousarray(arr)``. numpy counts an array whose only odd
strides sit on size-1 dimensions as contiguous and returns it unchanged, so
``np.array([7])[::-1]`` (stride -8) or ``np.zeros((1, 3))[::-1]`` reach
``torch.from_numpy`` with a negative stride: ``ValueError: At least one stride in the given
numpy array is negative``. Documented: negative-stride arrays are copied. Longer flips
(``np.arange(3)[::-1]``) are copied as before.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from h2d_contracts.h2d_impl import _host, h2d
from h2d_contracts.h2d_impl._host import _NUMPY_KINDS, _VIEWABLE_CHARS

from ._common import make_target
from ._patch import entry_points, rebind


def _numpy_to_tensor(arr: np.ndarray) -> torch.Tensor:
    """The reference's ``_numpy_to_tensor`` with ``np.ascontiguousarray`` for the layout copy."""
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
    if any(s < 0 or s % arr.itemsize for s in arr.strides):
        arr = np.ascontiguousarray(arr)  # BUG: returns size-1 flips unchanged (numpy calls them contiguous)
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(arr)
    except TypeError as exc:
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def target():
    source = rebind(_host.as_source_tensor, _numpy_to_tensor=_numpy_to_tensor)
    fn, cpu = entry_points(prepare=rebind(h2d._prepare, as_source_tensor=source))
    return make_target("b18-flip-size1-refused", fn=fn, cpu_variant=cpu)
