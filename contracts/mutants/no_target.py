"""Mutants that break the target contract: each the reference with one realistic bug."""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import mutant, reference_target


@mutant(killed_by=("target",))
def validation_by_assert() -> Target:
    """checks live in `assert` (as in vLLM): AssertionError instead of TypeError, and under python -O no check at all."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        assert device is not None or out is not None, "device or out is required"
        if out is not None:
            assert dtype is None or dtype == out.dtype, "dtype must match out.dtype"
            return R.async_tensor_h2d(data, dtype=out.dtype, out=out)
        return R.async_tensor_h2d(data, device if device is not None else "cpu", dtype)

    return reference_target("validation_by_assert", fn)
