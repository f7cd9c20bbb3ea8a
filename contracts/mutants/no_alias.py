"""Mutants that break the no-alias contract: each the reference with one realistic bug."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import _host as H  # a mutant is the reference with one change: white-box
from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import mutant, reference_target


@mutant(killed_by=("no-alias",))
def cpu_result_aliases_input() -> Target:
    """the CPU path returns a view of its input (torch.from_numpy / the tensor itself) when no conversion is needed."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is None and device is not None and torch.device(device).type == "cpu":
            source, own = H.as_source_tensor(data)
            if (dtype or own) == source.dtype:
                return source
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("cpu_result_aliases_input", fn)


@mutant(killed_by=("no-alias",))
def cpu_variant_returns_caller_memory() -> Target:
    """the CPU-platform variant returns ``torch.as_tensor(data)`` when no conversion is needed: the caller's own memory, not a copy."""

    def cpu(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is None and isinstance(data, (np.ndarray, torch.Tensor)):
            shared = torch.as_tensor(data) if not isinstance(data, np.ndarray) or data.dtype.isnative else None
            if shared is not None and (dtype is None or dtype == shared.dtype) and device is not None:
                R.async_tensor_h2d_cpu(data, device, dtype)  # validation, result dropped
                return shared
        return R.async_tensor_h2d_cpu(data, device, dtype, out)

    return reference_target("cpu_variant_returns_caller_memory", cpu_variant=cpu)
