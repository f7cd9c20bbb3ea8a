"""Mutants that break the dtype contract: each the reference with one realistic bug."""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import mutant, reference_target


@mutant(killed_by=("dtype",))
def dtype_mismatch_converted() -> Target:
    """dtype disagreeing with out.dtype is silently converted to out.dtype instead of rejected."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is not None and dtype is not None and dtype != out.dtype:
            dtype = None
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("dtype_mismatch_converted", fn)
