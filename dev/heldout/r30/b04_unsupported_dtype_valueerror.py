"""A torch dtype the reference cannot copy (complex32, quantized, float4) raises ``ValueError``, not ``TypeError``.

``check_dtype_arg`` reasons "it is a torch.dtype, so the type is right; its value is not
supported" and raises ``ValueError`` for ``dtype=torch.complex32``, an ``out`` of an
unsupported dtype and ``CpuGpuBuffer(dtype=torch.complex32)``. Documented (and in the
bad-input table: ``unsupported-dtype``, ``out-unsupported-dtype``): ``TypeError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import CpuGpuBuffer, h2d
from h2d_contracts.h2d_impl._host import SUPPORTED_DTYPES

from ._common import make_target
from ._patch import entry_points, rebind


def check_dtype_arg(dtype: Any, name: str = "dtype") -> None:
    """The reference's ``check_dtype_arg`` with ValueError for an unsupported torch dtype."""
    if dtype is None:
        return
    if not isinstance(dtype, torch.dtype):
        hint = ""
        if isinstance(dtype, (np.dtype, type)) or isinstance(dtype, str):
            hint = " (pass a torch.dtype such as torch.int32, not a numpy dtype, type or string)"
        raise TypeError(f"{name} must be a torch.dtype or None, got {dtype!r}{hint}")
    if dtype not in SUPPORTED_DTYPES:
        # BUG: the documented exception is TypeError
        raise ValueError(f"{name}={dtype} is not supported: torch has no host copy kernel for it")


class Buffer(CpuGpuBuffer):
    __init__ = rebind(CpuGpuBuffer.__init__, check_dtype_arg=check_dtype_arg)


def target():
    check_out = rebind(h2d._check_out, check_dtype_arg=check_dtype_arg)
    prepare = rebind(h2d._prepare, check_dtype_arg=check_dtype_arg, _check_out=check_out)
    fn, cpu = entry_points(prepare=prepare)
    return make_target("b04-unsupported-dtype-valueerror", fn=fn, cpu_variant=cpu, buffer_cls=Buffer)
