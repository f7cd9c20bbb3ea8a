"""The CPU-platform variant returns a large (65,536 elements or more) contiguous CPU
tensor of the target dtype as it is, without out= ("the host is the device; copying
hundreds of MB on a CPU worker is waste"). The result then aliases the caller's tensor."""

from __future__ import annotations

import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl.h2d import _prepare

from ._common import make_target

THRESHOLD = 65536


def async_tensor_h2d_cpu(data, device=None, dtype=None, out=None):
    if out is None and isinstance(data, torch.Tensor) and data.layout == torch.strided and not data.is_nested and data.numel() >= THRESHOLD:
        source, dt, _ = _prepare(data, device, dtype, None, cpu_only=True)
        if source.dtype == dt and source.is_contiguous() and not source.is_conj() and not source.is_neg():
            return source  # BUG: no copy, the caller's memory
    return h2d_impl.async_tensor_h2d_cpu(data, device=device, dtype=dtype, out=out)


def target():
    return make_target("b15-cpu-variant-large-alias", cpu_variant=async_tensor_h2d_cpu)
