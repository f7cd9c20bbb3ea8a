"""Mutants for the kinds the outside round r46 found missing on the CPU (the contract checks added for them must kill these).

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils


@mutant(killed_by=("bad-input",), by=("prop_bad_input_device_table",))
def device_string_case_folded() -> Target:
    """A "friendly" resolver folds device strings (``device.strip().lower()``) before parsing them: ``"CPU"``,
    ``" cpu"`` and ``"Cuda:0"`` are accepted, where torch's parser and the reference refuse them."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(device, str):
            device = device.strip().lower()
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("device_string_case_folded", fn)


class _FromNumpyPool(U.UvaBufferPool):
    """``copy_to_uva`` that sends ndarrays through ``torch.from_numpy`` first ("zero-copy")."""

    def copy_to_uva(self, x: torch.Tensor | np.ndarray | list[Any]) -> torch.Tensor:
        if isinstance(x, np.ndarray):
            x = torch.from_numpy(x)
        return super().copy_to_uva(x)


@mutant(killed_by=("pool",), by=("prop_pool_rows",))
def pool_arrays_from_numpy() -> Target:
    """``UvaBufferPool.copy_to_uva`` wraps an ndarray with ``torch.from_numpy``: a reversed or non-native byte-order
    array (valid ``x``, which vLLM's ``dst[:n] = x`` takes) raises torch's ValueError."""
    return reference_target("pool_arrays_from_numpy", buffer_utils=_utils(UvaBufferPool=_FromNumpyPool))


class _RankUncheckedPool(U.UvaBufferPool):
    """``copy_to_uva`` whose shape test compares only the trailing dimensions (the rank test dropped)."""

    def copy_to_uva(self, x: torch.Tensor | np.ndarray | list[Any]) -> torch.Tensor:
        shape = tuple(x.shape) if isinstance(x, torch.Tensor) else np.shape(x)
        if tuple(shape[1:]) != self._shape[1:]:
            raise ValueError(f"x has shape {tuple(shape)}; a slot holds rows of shape {self._shape[1:]}")
        shape[0]  # the row count, read as the reference's body reads it: a 0-d x raises IndexError here
        return super().copy_to_uva(x)


@mutant(killed_by=("pool",), by=("prop_pool_rows",))
def pool_rank_check_dropped() -> Target:
    """``UvaBufferPool.copy_to_uva`` tests only the trailing shape: a 0-d ``x`` fails with Python's ``IndexError:
    tuple index out of range`` naming no argument, instead of a ValueError naming ``x``."""
    return reference_target("pool_rank_check_dropped", buffer_utils=_utils(UvaBufferPool=_RankUncheckedPool))


class _StridesFor2dOnly(U.FusedStagedWriter):
    """``apply`` that checks the stride table only when some tensor has rows of more than one element."""

    def apply(self, tensors: Any, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
        if not any(t.gpu.dim() > 1 for t in tensors):
            output_strides = torch.tensor([t.gpu.stride(0) for t in tensors], dtype=output_strides.dtype)
        super().apply(tensors, output_ptrs, output_strides)


@mutant(killed_by=("fused-writes",), by=("prop_fused_refused",))
def fused_strides_1d_unchecked() -> Target:
    """``FusedStagedWriter.apply`` skips the stride-table check when every tensor is 1-D ("a 1-D tensor's stride is
    always 1"): a wrong table is accepted (the reference raises ValueError naming ``output_strides``)."""
    return reference_target("fused_strides_1d_unchecked", buffer_utils=_utils(FusedStagedWriter=_StridesFor2dOnly))
