"""out= validation (layout, grad, overlap, aliasing with data, shape) runs once per out
object: an out that passed is remembered (weakly) and later calls with it only check
dtype, device and the values, then ``out.copy_(source)``. A second call with the same out
and data of a broadcastable shape is broadcast into it instead of raising ValueError."""

from __future__ import annotations

import threading
import weakref

import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl._host import as_source_tensor, check_dtype_arg, check_representable
from h2d_contracts.h2d_impl.h2d import _resolve_device

from ._common import make_target

_VALIDATED: dict[int, "weakref.ref[torch.Tensor]"] = {}
_LOCK = threading.Lock()


def _trusted(out):
    ref = _VALIDATED.get(id(out))
    return ref is not None and ref() is out


def async_tensor_h2d(data, device=None, dtype=None, out=None):
    if isinstance(out, torch.Tensor) and _trusted(out):
        check_dtype_arg(dtype)
        if dtype is not None and dtype != out.dtype:
            raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}; it is never converted silently")
        if device is not None and _resolve_device(device) != out.device:
            raise ValueError(f"device={device} disagrees with out.device={out.device}")
        source, _ = as_source_tensor(data, infer_dtype=False)
        check_representable(source, out.dtype)
        return out.copy_(source, non_blocking=True)  # BUG: shape/alias checks skipped
    result = h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
    if isinstance(out, torch.Tensor):
        with _LOCK:
            if len(_VALIDATED) > 1024:
                for k in [k for k, r in _VALIDATED.items() if r() is None]:
                    del _VALIDATED[k]
            _VALIDATED[id(out)] = weakref.ref(out)
    return result


def target():
    return make_target("b13-out-validation-cached", fn=async_tensor_h2d)
