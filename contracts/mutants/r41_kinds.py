"""Mutants for the kinds the outside round r41 (Model Runner V2's utilities) found missing.

Each is the reference's ``h2d_impl.buffer_utils`` with one class replaced by a subclass carrying one realistic change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils


@mutant(killed_by=("staged-write",), by=("prop_staged_far_past",))
def staged_index_narrowed_to_int32() -> Target:
    """``stage_write`` converts ``index`` and ``start`` with ``np.int32(...)`` ("the kernel reads int32 anyway"): a row
    or start past int32 given as a numpy integer wraps onto a real row or column, and the write lands there."""

    class Staged(U.StagedWriteTensor):
        def _check(self, index: Any, start: Any, length: int) -> tuple[int, int]:
            # numpy's astype wraps silently: np.int64(2**32 + 1) becomes row 1
            index, start = (
                int(np.asarray(v).astype(np.int32)) if isinstance(v, np.integer) else v for v in (index, start)
            )
            return super()._check(index, start, length)

    return reference_target("staged_index_narrowed_to_int32", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("pool",), by=("prop_pool_steps",))
def pool_depth_clamped_at_four() -> Target:
    """``UvaBufferPool`` caps ``max_concurrency`` at 4 slots ("more is never needed"): a pool asked for 5 or more
    reuses a slot while a reader of it is still in flight."""

    class Pool(U.UvaBufferPool):
        def __init__(self, size: int | Sequence[int], dtype: torch.dtype, max_concurrency: int | None = None) -> None:
            super().__init__(size, dtype, max_concurrency)
            if self.max_concurrency > 4:
                del self._uva_bufs[4:]
                self.max_concurrency = 4

    return reference_target("pool_depth_clamped_at_four", buffer_utils=_utils(UvaBufferPool=Pool))


@mutant(killed_by=("fused-writes",), by=("prop_fused_some_empty",))
def fused_ptrs_checked_against_pending() -> Target:
    """``FusedStagedWriter.apply`` checks ``output_ptrs`` against the tensors that have writes staged (the ones the
    kernel writes): a right table is refused whenever a tensor has nothing staged."""

    class Fused(U.FusedStagedWriter):
        def apply(
            self, tensors: Sequence[U.StagedWriteTensor], output_ptrs: torch.Tensor, output_strides: torch.Tensor
        ) -> None:
            pending = [t for t in tensors if t._staged_write_indices]
            if [int(p) for p in output_ptrs.tolist()] != [t.gpu.data_ptr() for t in pending]:
                raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
            super().apply(tensors, output_ptrs, output_strides)

    return reference_target("fused_ptrs_checked_against_pending", buffer_utils=_utils(FusedStagedWriter=Fused))
