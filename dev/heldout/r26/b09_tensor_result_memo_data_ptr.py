"""Uploads of a CPU tensor without out= are memoised by ``data_ptr()``, shape, strides,
dtype, device and dtype argument ("several metadata builders upload the same host tensor
in one step"), and the earlier result object itself is returned. A persistent host tensor
refilled in place comes back with the first upload's values (and as the same object)."""

from __future__ import annotations

import collections
import threading

import torch

from h2d_contracts import h2d_impl

from ._common import make_target

_MEMO: "collections.OrderedDict[tuple, torch.Tensor]" = collections.OrderedDict()
_LOCK = threading.Lock()
_MAX = 256


def async_tensor_h2d(data, device=None, dtype=None, out=None):
    if out is not None or device is None or not isinstance(data, torch.Tensor) or data.layout != torch.strided or not data.is_cpu:
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
    key = (data.data_ptr(), tuple(data.shape), data.stride(), data.dtype, data.is_conj(), data.is_neg(),
           str(device), dtype)  # BUG: no check that the contents are unchanged
    with _LOCK:
        hit = _MEMO.get(key)
    if hit is not None:
        return hit
    result = h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
    with _LOCK:
        _MEMO[key] = result
        while len(_MEMO) > _MAX:
            _MEMO.popitem(last=False)
    return result


def target():
    return make_target("b09-tensor-result-memo-data-ptr", fn=async_tensor_h2d)
