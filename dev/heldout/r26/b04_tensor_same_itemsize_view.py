"""CPU tensors of 1 MiB or more converted to another dtype of the same item size
(int32 -> float32, int64 -> float64, float16 <-> bfloat16, ...) skip the conversion pass:
the values are validated, then the tensor is reinterpreted with ``.view(dtype)`` ("same
width: the host copy can be a memcpy"). The bits are copied, not the values."""

from __future__ import annotations

import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl._host import SUPPORTED_DTYPES, check_representable

from ._common import make_target

THRESHOLD_BYTES = 1 << 20


def async_tensor_h2d(data, device=None, dtype=None, out=None):
    want = dtype if dtype is not None else (out.dtype if isinstance(out, torch.Tensor) else None)
    if (
        isinstance(data, torch.Tensor)
        and isinstance(want, torch.dtype)
        and data.layout == torch.strided
        and not data.is_nested
        and data.is_cpu
        and data.dtype in SUPPORTED_DTYPES
        and want in SUPPORTED_DTYPES
        and want != data.dtype
        and want.itemsize == data.dtype.itemsize
        and data.numel() * data.element_size() >= THRESHOLD_BYTES
        and not data.is_conj()
        and not data.is_neg()
    ):
        check_representable(data, want)
        data = data.detach().view(want)  # BUG: reinterprets the bits instead of converting
    return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)


def target():
    return make_target("b04-tensor-same-itemsize-view", fn=async_tensor_h2d)
