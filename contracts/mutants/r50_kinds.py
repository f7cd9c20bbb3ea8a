"""Mutants for the kinds the outside round r50 found missing on the CPU (the contract checks added for them must kill these).

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


def _nested_with_huge_ints(data: Any) -> bool:
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(row, list) for row in data)
        and any(isinstance(v, int) and v >= 2**63 for row in data for v in row)
    )


@mutant(killed_by=("values",), by=("prop_values_int_edges",))
def nested_huge_ints_flattened() -> Target:
    """A nested list whose ints reach 2**63 is rebuilt from its flat leaves ("the uint64 branch already holds every
    int"): ``[[0, 1], [2**53 + 1, 2**64 - 1]]`` into uint64 comes back of shape (4,), not (2, 2)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if _nested_with_huge_ints(data) and out is None:
            data = [v for row in data for v in row]
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("nested_huge_ints_flattened", fn)


@mutant(killed_by=("side-effects",), by=("prop_side_effects_table",))
def numpy_bufsize_left_raised() -> Target:
    """A large ndarray's host copy raises numpy's ufunc buffer size for "one buffer for the whole cast" and never puts
    it back: ``np.setbufsize`` is process-wide, so the caller's numpy runs every later cast with it."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, np.ndarray) and data.size > 1 << 15:
            np.setbufsize(1 << 16)
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("numpy_bufsize_left_raised", fn)


class _IntegralRowsBuffer(h2d_impl.CpuGpuBuffer):
    """A buffer whose row count must be a ``numbers.Integral`` ("an ABC test is clearer than operator.index")."""

    def copy_to_gpu(self, n: Any = None) -> torch.Tensor:
        if isinstance(n, torch.Tensor):
            raise TypeError(f"n must be an int or None, got {n!r}")
        return super().copy_to_gpu(n)

    def copy_to_cpu(self, n: Any = None) -> torch.Tensor:
        if isinstance(n, torch.Tensor):
            raise TypeError(f"n must be an int or None, got {n!r}")
        return super().copy_to_cpu(n)


@mutant(killed_by=("buffer",), by=("prop_buffer_copy_sizes",))
def buffer_rows_refuse_tensors() -> Target:
    """``copy_to_gpu(n)``/``copy_to_cpu(n)`` refuse a count given as a 0-d integer tensor (TypeError), which the
    reference (``operator.index``) and vLLM (slicing) take."""
    return reference_target("buffer_rows_refuse_tensors", buffer_cls=_IntegralRowsBuffer)


class _IntPinBuffer(h2d_impl.CpuGpuBuffer):
    """A buffer that takes any 0 or 1 for ``pin_memory`` ("1 == True in Python")."""

    def __init__(self, *size: Any, pin_memory: Any = None, **kwargs: Any) -> None:
        if type(pin_memory) is int and pin_memory in (0, 1):
            pin_memory = bool(pin_memory)
        super().__init__(*size, pin_memory=pin_memory, **kwargs)


@mutant(killed_by=("buffer",), by=("prop_buffer_bad_args",))
def buffer_pin_memory_int_accepted() -> Target:
    """``CpuGpuBuffer(..., pin_memory=1)`` is built (membership in ``(None, True, False)``), where the reference raises
    TypeError naming ``pin_memory``."""
    return reference_target("buffer_pin_memory_int_accepted", buffer_cls=_IntPinBuffer)


class _InclusiveRowsStaged(U.StagedWriteTensor):
    """A row bound written ``index <= num_rows``: the row just past the tensor is staged."""

    def _check(self, index: Any, start: Any, length: int) -> tuple[int, int]:
        if not isinstance(index, bool) and isinstance(index, (int, np.integer)) and int(index) == self.num_rows:
            return int(index), int(start)
        return super()._check(index, start, length)


@mutant(killed_by=("staged-write",), by=("prop_staged_edges",))
def staged_row_bound_inclusive() -> Target:
    """``stage_write(num_rows, ...)`` is staged (an off-by-one in the row bound): the next apply fails on it, and
    keeps failing, where the reference refuses the write with IndexError naming ``index``."""
    return reference_target("staged_row_bound_inclusive", buffer_utils=_utils(StagedWriteTensor=_InclusiveRowsStaged))


class _LastDimRowStaged(U.StagedWriteTensor):
    """A row taken as the tensor's last dimension ("a row is the last dimension")."""

    def __init__(self, size: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(size, *args, **kwargs)
        if self.gpu.dim() > 1:
            self._row_len = int(self.gpu.shape[-1])


@mutant(killed_by=("staged-write",), by=("prop_staged_edges",))
def staged_row_is_last_dim() -> Target:
    """A 3-D ``StagedWriteTensor``'s row is its last dimension: a whole row is refused, an element of row 1 lands in
    row 0."""
    return reference_target("staged_row_is_last_dim", buffer_utils=_utils(StagedWriteTensor=_LastDimRowStaged))


class _IdentityTablesWriter(U.FusedStagedWriter):
    """Tables cached by the identity of the table tensors alone ("the engine passes the same ones every step")."""

    def _read_tables(self, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> tuple[list[int], list[int]]:
        last = self._tables
        if last is not None and last[0] is output_ptrs and last[1] is output_strides:
            return last[3], last[4]
        return super()._read_tables(output_ptrs, output_strides)


@mutant(killed_by=("fused-writes",), by=("prop_fused_refused", "prop_fused_tables_reordered"))
def fused_tables_cached_by_identity() -> Target:
    """``FusedStagedWriter`` keeps its first reading of the table tensors whatever is written into them later: a table
    swapped in place is applied, one updated for a new order of the tensors refused."""
    return reference_target(
        "fused_tables_cached_by_identity", buffer_utils=_utils(FusedStagedWriter=_IdentityTablesWriter)
    )
