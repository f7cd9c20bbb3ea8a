"""Mutants for the kinds held-out round r59 found missing: fused tables made under ``inference_mode`` keyed by a
stand-in version, the fused table checks skipped for one tensor, 0-d tensors staged as numbers, a staged tensor's row
length divided out of a row count that may be 0.

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils, stage_unchecked


class _StandInVersion(U.FusedStagedWriter):
    """The tables' cache keyed by ``Tensor._version``, None for tables that have none (inference tensors): equal to
    itself after any in-place change."""

    def _read_tables(self, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> tuple[list[int], list[int]]:
        def version(t: torch.Tensor) -> int | None:
            try:
                return t._version
            except RuntimeError:
                return None

        versions = (version(output_ptrs), version(output_strides))
        last = self._tables
        if last is not None and last[0] is output_ptrs and last[1] is output_strides and last[2] == versions:
            return last[3], last[4]
        ptrs = [int(p) for p in output_ptrs.tolist()]
        strides = [int(s) for s in output_strides.tolist()]
        self._tables = (output_ptrs, output_strides, versions, ptrs, strides)  # type: ignore[assignment]
        return ptrs, strides


@mutant(killed_by=("fused-writes",), by=("prop_fused_tables_reordered",))
def fused_inference_tables_stand_in_version() -> Target:
    """``FusedStagedWriter`` keys its reading of the tables by version, None for inference tensors: tables made under
    ``inference_mode`` and rewritten in place are never read again (the next apply is refused as stale)."""
    return reference_target(
        "fused_inference_tables_stand_in_version", buffer_utils=_utils(FusedStagedWriter=_StandInVersion)
    )


class _OneTensorUnchecked(U.FusedStagedWriter):
    """``apply`` checks the tables only for two tensors or more ("with one there is nothing to mix up")."""

    def apply(self, tensors: Any, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
        if len(tensors) == 1:
            for t in tensors:
                t.apply_write()
            return
        super().apply(tensors, output_ptrs, output_strides)


@mutant(killed_by=("fused-writes",), by=("prop_fused_refused",))
def fused_one_tensor_unchecked() -> Target:
    """``FusedStagedWriter.apply`` of one tensor skips the table checks: another tensor's pointer, a wrong stride or a
    table of two entries is accepted."""
    return reference_target("fused_one_tensor_unchecked", buffer_utils=_utils(FusedStagedWriter=_OneTensorUnchecked))


class _ZeroDimValues(U.StagedWriteTensor):
    """0-d tensors among the values staged as numbers ("a sampler's row iterated gives 0-d tensors")."""

    def stage_write(self, index: Any, start: Any, x: Any) -> None:
        if isinstance(x, (list, tuple)) and any(isinstance(v, torch.Tensor) and v.dim() == 0 for v in x):
            stage_unchecked(self, index, start, [v.item() if isinstance(v, torch.Tensor) else v for v in x])
            return
        super().stage_write(index, start, x)


@mutant(killed_by=("staged-write",), by=("prop_staged_bad_values",))
def staged_zero_dim_tensors_taken() -> Target:
    """``stage_write`` takes 0-d tensors among the values as numbers (a bool tensor is written 1)."""
    return reference_target("staged_zero_dim_tensors_taken", buffer_utils=_utils(StagedWriteTensor=_ZeroDimValues))


class _RowLenByDivision(U.StagedWriteTensor):
    """The row length as ``numel // rows`` ("elements per row, whatever the rank"): a tensor of no rows divides by 0."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._row_len = self.gpu.numel() // self.gpu.shape[0]


@mutant(killed_by=("staged-write",), by=("prop_staged_edges",))
def staged_row_len_by_division() -> Target:
    """``StagedWriteTensor``'s row length divided out of its row count: a tensor of no rows cannot be made."""
    return reference_target("staged_row_len_by_division", buffer_utils=_utils(StagedWriteTensor=_RowLenByDivision))
