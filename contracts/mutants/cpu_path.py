"""Mutants that break the cpu-path contract: each the reference with one realistic bug."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import mutant, reference_target


@mutant(killed_by=("cpu-path",))
def cpu_variant_numpy_inference() -> Target:
    """the CPU-platform variant infers list dtypes like numpy (float64, not torch's float32): the two paths disagree."""

    def cpu(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, list) and dtype is None and out is None:
            arr = np.asarray(data)
            if arr.dtype.kind == "f":
                return R.async_tensor_h2d_cpu(arr, device, dtype, out)
        return R.async_tensor_h2d_cpu(data, device, dtype, out)

    return reference_target("cpu_variant_numpy_inference", cpu_variant=cpu)
