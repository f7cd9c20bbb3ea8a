"""With ``out=`` of more than 32,768 elements (torch's parallel grain) the payload is
staged once and written with a single flat copy, ``out.reshape(-1).copy_(staged.reshape(-1))``.
For a non-contiguous out (transposed, a column slice) ``reshape`` returns a copy, so the
write lands in a temporary and ``out`` is returned unwritten."""

from __future__ import annotations

import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl.h2d import _prepare, _stage

from ._common import make_target

THRESHOLD = 32768


def async_tensor_h2d(data, device=None, dtype=None, out=None):
    if isinstance(out, torch.Tensor) and out.layout == torch.strided and out.numel() > THRESHOLD:
        source, dt, _ = _prepare(data, device, dtype, out, cpu_only=False)
        staged = _stage(source, dt, pin=False)
        out.reshape(-1).copy_(staged.reshape(-1), non_blocking=True)  # BUG: a copy for non-contiguous out
        return out
    return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)


def target():
    return make_target("b05-out-reshape-large", fn=async_tensor_h2d)
