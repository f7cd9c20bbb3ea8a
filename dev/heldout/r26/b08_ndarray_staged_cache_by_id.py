"""The validated, converted host copy of an ndarray is cached by ``id(arr)`` (plus shape,
strides and dtypes) and reused when the same array is uploaded again ("static metadata
arrays are re-sent every step"). An engine refilling one persistent array in place gets
the first step's values forever; a new array that reuses a freed array's id gets the old
array's values."""

from __future__ import annotations

import collections
import threading

import numpy as np
import torch

from h2d_contracts import h2d_impl

from ._common import make_target

_CACHE: "collections.OrderedDict[tuple, torch.Tensor]" = collections.OrderedDict()
_LOCK = threading.Lock()
_MAX = 256


def async_tensor_h2d(data, device=None, dtype=None, out=None):
    if not isinstance(data, np.ndarray):
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
    key = (id(data), data.shape, data.strides, data.dtype.str, dtype,
           out.dtype if isinstance(out, torch.Tensor) else None)  # BUG: identity, not contents
    with _LOCK:
        staged = _CACHE.get(key)
    if staged is not None:
        return h2d_impl.async_tensor_h2d(staged, device=device, dtype=dtype, out=out)
    result = h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
    staged = h2d_impl.async_tensor_h2d_cpu(data, device="cpu", dtype=result.dtype)
    with _LOCK:
        _CACHE[key] = staged
        while len(_CACHE) > _MAX:
            _CACHE.popitem(last=False)
    return result


def target():
    return make_target("b08-ndarray-staged-cache-by-id", fn=async_tensor_h2d)
