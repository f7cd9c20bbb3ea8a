"""Mutants for the kinds held-out round r58 found missing (backed tensors of one spec sharing a pool, grad mode set
*on* after an apply, a numpy array's truth value taken for an empty write, an empty fused table, a pool of 0 rows
grown from its rows) and one defect of the reference it showed (fused tables of ``inference_mode`` cached by a
version counter they do not have).

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils

#: The pools of :class:`_SharedPoolBacked`, one per (shape, dtype, depth) (a mutant's own, never the reference's).
_SHARED: dict[tuple[Any, ...], Any] = {}


class _SharedPoolBacked(U.UvaBackedTensor):
    """Backed tensors of one spec share one pool ("each pool pins max_concurrency slots: one per spec is enough")."""

    def __init__(self, size: Any, dtype: torch.dtype, max_concurrency: int | None = None) -> None:
        super().__init__(size, dtype, max_concurrency)
        key = (tuple(self.cpu.shape), self.dtype, max_concurrency)
        self.pool = _SHARED.setdefault(key, self.pool)


@mutant(killed_by=("pool",), by=("prop_pools_interleaved",))
def backed_tensors_share_pool() -> Target:
    """``UvaBackedTensor``\\ s of one spec share one ``UvaBufferPool``: one tensor's refresh advances the ring for all,
    and overwrites the slot another's ``.gpu`` still views."""
    _SHARED.clear()
    return reference_target("backed_tensors_share_pool", buffer_utils=_utils(UvaBackedTensor=_SharedPoolBacked))


class _GradBackOn(U.StagedWriteTensor):
    """``apply_write`` switches grad mode off for its write and back on afterwards, whatever it was."""

    def apply_write(self) -> None:
        torch.set_grad_enabled(False)
        try:
            super().apply_write()
        finally:
            torch.set_grad_enabled(True)


@mutant(killed_by=("staged-write",), by=("prop_staged_in_contexts",))
def staged_apply_grad_back_on() -> Target:
    """``StagedWriteTensor.apply_write`` leaves grad mode on: inside ``no_grad`` the caller's later ops record graphs."""
    return reference_target("staged_apply_grad_back_on", buffer_utils=_utils(StagedWriteTensor=_GradBackOn))


class _TruthOfX(U.StagedWriteTensor):
    """``stage_write`` returns on ``if not x`` (vLLM's spelling), numpy's truth value for an array."""

    def stage_write(self, index: Any, start: Any, x: Any) -> None:
        if not x:
            return
        super().stage_write(index, start, x)


@mutant(killed_by=("staged-write",), by=("prop_staged_array_values",))
def staged_empty_test_on_x() -> Target:
    """``stage_write`` tests ``not x``: ``np.array([0])`` is dropped, an array of two values raises."""
    return reference_target("staged_empty_test_on_x", buffer_utils=_utils(StagedWriteTensor=_TruthOfX))


class _EmptyTableReturns(U.FusedStagedWriter):
    """``apply`` returns at once on an empty pointer table ("an attention-free model: nothing to apply")."""

    def apply(self, tensors: Any, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
        if not output_ptrs.numel():
            return
        super().apply(tensors, output_ptrs, output_strides)


@mutant(killed_by=("fused-writes",), by=("prop_fused_refused",))
def fused_empty_table_returns() -> Target:
    """``FusedStagedWriter.apply`` with an empty pointer table beside tensors with writes returns: nothing written, no
    error, the writes left staged."""
    return reference_target("fused_empty_table_returns", buffer_utils=_utils(FusedStagedWriter=_EmptyTableReturns))


class _GrowFromRows(U.UvaBufferPool):
    """A slot grows to twice its rows ("vector growth"); a slot of 0 rows stays at 0, and its write fails."""

    def copy_to_uva(self, x: Any) -> torch.Tensor:
        n = len(x)
        nxt = (self._curr + 1) % self.max_concurrency
        buf = self._uva_bufs[nxt]
        if n > buf.cpu.shape[0]:
            grown = self._buffer_cls((2 * buf.cpu.shape[0], *buf.cpu.shape[1:]), self.dtype)
            self._retire(buf)
            self._uva_bufs[nxt] = grown
            if grown.cpu.shape[0] < n:  # "doubling always fits": numpy's broadcast error where it does not
                grown.np[:n] = x
        return super().copy_to_uva(x)


@mutant(killed_by=("pool",), by=("prop_pool_rows",))
def pool_grows_from_rows() -> Target:
    """``UvaBufferPool`` grows a slot by doubling its rows: a pool made with 0 rows cannot take its first step."""
    return reference_target("pool_grows_from_rows", buffer_utils=_utils(UvaBufferPool=_GrowFromRows))


class _TablesByVersion(U.FusedStagedWriter):
    """The tables' cache keyed by ``Tensor._version`` for every table, inference tensors included (which have none)."""

    def _read_tables(self, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> tuple[list[int], list[int]]:
        versions = (output_ptrs._version, output_strides._version)
        last = self._tables
        if last is not None and last[0] is output_ptrs and last[1] is output_strides and last[2] == versions:
            return last[3], last[4]
        ptrs = [int(p) for p in output_ptrs.tolist()]
        strides = [int(s) for s in output_strides.tolist()]
        self._tables = (output_ptrs, output_strides, versions, ptrs, strides)
        return ptrs, strides


@mutant(killed_by=("side-effects",), by=("prop_buffer_utils_side_effects",))
def fused_tables_version_of_inference_tensors() -> Target:
    """``FusedStagedWriter`` reads its tables' version counters: tables made under ``inference_mode`` (no counter) make
    every apply raise (the reference's own defect, shown by round r58's "inference mode" start)."""
    return reference_target(
        "fused_tables_version_of_inference_tensors", buffer_utils=_utils(FusedStagedWriter=_TablesByVersion)
    )


@mutant(killed_by=("side-effects",), by=("prop_side_effects_table",))
def h2d_grad_mode_back_on() -> Target:
    """``async_tensor_h2d`` converts under ``torch.no_grad()`` entered by hand and leaves grad mode on: a call inside
    the engine's ``no_grad`` or ``inference_mode`` turns recording back on."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        torch.set_grad_enabled(False)
        try:
            return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
        finally:
            torch.set_grad_enabled(True)

    return reference_target("h2d_grad_mode_back_on", fn)
