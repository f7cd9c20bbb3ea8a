"""Mutants that break the contracts of Model Runner V2's transfer utilities (uva, pool, staged-write, fused-writes).

Each is the reference's ``h2d_impl.buffer_utils`` with one class replaced by a subclass
carrying one realistic bug, several of them what vLLM 0.33.0's own classes do.
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target


def _utils(**swapped: Any) -> types.SimpleNamespace:
    names = ("UvaBuffer", "NonUvaBuffer", "UvaBufferPool", "UvaBackedTensor", "StagedWriteTensor", "FusedStagedWriter")
    return types.SimpleNamespace(**{n: swapped.get(n, getattr(U, n)) for n in names})


def stage_unchecked(t: U.StagedWriteTensor, index: Any, start: Any, values: list[Any]) -> None:
    """Stage ``values`` on ``t`` past the reference's value check: its bounds checks and bookkeeping run on zeros of the
    same length, then the staged contents are swapped for ``values`` (the value-check mutants' one change)."""
    U.StagedWriteTensor.stage_write(t, index, start, [0] * len(values))
    if values:
        t._staged_write_contents[-len(values) :] = values


@mutant(killed_by=("staged-write",))
def staged_write_bounds_asserted() -> Target:
    """stage_write checks its bounds with asserts of index >= 0 and start >= 0 only (vLLM's), a row past the tensor is staged."""

    class Staged(U.StagedWriteTensor):
        def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
            assert index >= 0
            assert start >= 0
            values = list(x)
            if not values:
                return
            self._staged_write_indices.append(index)
            self._staged_write_starts.append(start)
            self._staged_write_contents.extend(values)
            self._staged_write_cu_lens.append(len(self._staged_write_contents))

    return reference_target("staged_write_bounds_asserted", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("staged-write",))
def staged_writes_first_wins() -> Target:
    """Overlapping staged writes are applied so that the first staged write of an element wins, not the last."""

    class Staged(U.StagedWriteTensor):
        def staged_positions(self) -> tuple[np.ndarray, list[int | float]]:
            positions, values = super().staged_positions()
            return positions[::-1].copy(), values[::-1]

    return reference_target("staged_writes_first_wins", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("staged-write",), by=("prop_staged_chunks",))
def staged_write_one_chunk() -> Target:
    """A staged write copies at most one 1,024-element chunk (a grid of one program per write): the rest of a long write is lost."""

    class Staged(U.StagedWriteTensor):
        def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
            super().stage_write(index, start, list(x)[:1024])

    return reference_target("staged_write_one_chunk", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("staged-write",))
def staged_write_half_precision_accepted() -> Target:
    """float16 and bfloat16 StagedWriteTensors are accepted (the supported list grew) where ValueError is documented."""

    class Staged(U.StagedWriteTensor):
        def __init__(self, size: Any, dtype: torch.dtype, device: Any, *args: Any, **kwargs: Any) -> None:
            if dtype in (torch.float16, torch.bfloat16):
                self.dtype, self.num_rows, self.device = dtype, size if isinstance(size, int) else size[0], device
                self.gpu = torch.zeros(size, dtype=dtype, device=device)
                return
            super().__init__(size, dtype, device, *args, **kwargs)

    return reference_target("staged_write_half_precision_accepted", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("fused-writes",))
def fused_contents_as_int32() -> Target:
    """The fused writer sends every tensor's contents as int32 (vLLM's): float32 and int64 values are converted."""

    class Fused(U.FusedStagedWriter):
        def apply(
            self, tensors: Sequence[U.StagedWriteTensor], output_ptrs: torch.Tensor, output_strides: torch.Tensor
        ) -> None:
            for t in tensors:
                t._staged_write_contents[:] = [
                    int(np.int32(np.int64(int(v)) & 0xFFFFFFFF).view(np.int32)) if np.isfinite(v) else 0
                    for v in t._staged_write_contents
                ]
            super().apply(tensors, output_ptrs, output_strides)

    return reference_target("fused_contents_as_int32", buffer_utils=_utils(FusedStagedWriter=Fused))


@mutant(killed_by=("fused-writes",))
def fused_keeps_staged_writes() -> Target:
    """The fused writer applies the tensors' writes but leaves them staged: the next apply writes them again."""

    class Fused(U.FusedStagedWriter):
        def apply(
            self, tensors: Sequence[U.StagedWriteTensor], output_ptrs: torch.Tensor, output_strides: torch.Tensor
        ) -> None:
            saved = [
                (
                    list(t._staged_write_indices),
                    list(t._staged_write_starts),
                    list(t._staged_write_contents),
                    list(t._staged_write_cu_lens),
                )
                for t in tensors
            ]
            super().apply(tensors, output_ptrs, output_strides)
            for t, (i, s, c, cu) in zip(tensors, saved, strict=True):
                (
                    t._staged_write_indices[:],
                    t._staged_write_starts[:],
                    t._staged_write_contents[:],
                    t._staged_write_cu_lens[:],
                ) = i, s, c, cu

    return reference_target("fused_keeps_staged_writes", buffer_utils=_utils(FusedStagedWriter=Fused))


@mutant(killed_by=("pool",))
def pool_depth_ignored() -> Target:
    """The pool writes every step into its first slot: a reader still in flight sees the next step's data."""

    class Pool(U.UvaBufferPool):
        def copy_to_uva(self, x: Any) -> torch.Tensor:
            self._curr = self.max_concurrency - 1  # the next slot is always slot 0
            return super().copy_to_uva(x)

    return reference_target("pool_depth_ignored", buffer_utils=_utils(UvaBufferPool=Pool))


@mutant(killed_by=("pool",))
def pool_rows_broadcast() -> Target:
    """The pool assigns ``x`` into a slot without checking its rows' shape (vLLM's ``dst[:n] = x``): other shapes broadcast."""

    class Pool(U.UvaBufferPool):
        def copy_to_uva(self, x: Any) -> torch.Tensor:
            n = len(x)
            self._curr = (self._curr + 1) % self.max_concurrency
            buf = self._uva_bufs[self._curr]
            if n > buf.cpu.shape[0]:
                buf = self._uva_bufs[self._curr] = self._buffer_cls(
                    (1 << (n - 1).bit_length(), *buf.cpu.shape[1:]), self.dtype
                )
            dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
            dst[:n] = x
            return buf.uva(n)

    return reference_target("pool_rows_broadcast", buffer_utils=_utils(UvaBufferPool=Pool))


@mutant(killed_by=("pool",))
def pool_growth_truncates() -> Target:
    """A slot grows to the old capacity doubled once, not to a power of two past ``len(x)``: longer steps are cut."""

    class Pool(U.UvaBufferPool):
        def copy_to_uva(self, x: Any) -> torch.Tensor:
            nxt = (self._curr + 1) % self.max_concurrency
            rows = self._uva_bufs[nxt].cpu.shape[0]
            if len(x) > rows:
                x = x[: 2 * rows]
            return super().copy_to_uva(x)

    return reference_target("pool_growth_truncates", buffer_utils=_utils(UvaBufferPool=Pool))


@mutant(killed_by=("uva",))
def uva_rows_clamped() -> Target:
    """``uva(n)`` slices without a bounds check (vLLM's ``self._uva[:n]``): n past the rows gives all rows, -1 all but one."""

    class NonUva(U.NonUvaBuffer):
        def uva(self, n: int | None = None) -> torch.Tensor:
            if n is None:
                return self._uva.copy_(self.cpu, non_blocking=True)
            return self._uva[:n].copy_(self.cpu[:n], non_blocking=True)

    class Uva(U.UvaBuffer):
        def uva(self, n: int | None = None) -> torch.Tensor:
            return self._uva[:n] if n is not None else self._uva

    return reference_target("uva_rows_clamped", buffer_utils=_utils(NonUvaBuffer=NonUva, UvaBuffer=Uva))


@mutant(killed_by=("uva",), needs="cuda")
def uva_view_copied() -> Target:
    """A UvaBuffer's view is a device copy made at construction and at each ``uva()``: a reader sees the bytes at the call."""

    class Uva(U.UvaBuffer):
        def uva(self, n: int | None = None) -> torch.Tensor:
            view = super().uva(n)
            return view.clone()

    return reference_target("uva_view_copied", buffer_utils=_utils(UvaBuffer=Uva))


@mutant(killed_by=("uva",), needs="cuda")
def uva_view_does_not_own_memory() -> Target:
    """A UvaBuffer's view maps the pinned bytes without holding the host tensor (a no-op deleter, as older vLLM
    releases' op had): a view that outlives its buffer reads whatever the caching host allocator puts there next."""

    class Uva(U.UvaBuffer):
        def uva(self, n: int | None = None) -> torch.Tensor:
            view = super().uva(n)
            if view.numel() == 0:
                return view
            raw = {"shape": (view.numel() * view.element_size(),), "typestr": "|u1", "data": (view.data_ptr(), False)}
            borrowed = types.SimpleNamespace(__cuda_array_interface__={**raw, "version": 3})
            return torch.as_tensor(borrowed, device=view.device).view(view.dtype).view(view.shape)

    return reference_target("uva_view_does_not_own_memory", buffer_utils=_utils(UvaBuffer=Uva))


@mutant(killed_by=("uva",), needs="cuda")
def nonuva_host_pinned() -> Target:
    """NonUvaBuffer pins its ``.cpu`` "so that uva(n) is asynchronous": the queued DMA reads the host's refill after
    the call, not the values at the call."""

    class NonUva(U.NonUvaBuffer):
        def __init__(self, size: Any, dtype: torch.dtype, device: Any = None) -> None:
            super().__init__(size, dtype, device)
            if torch.cuda.is_available():
                self.cpu = self.cpu.pin_memory()
                self.np = self.cpu.numpy()

    return reference_target("nonuva_host_pinned", buffer_utils=_utils(NonUvaBuffer=NonUva))


@mutant(killed_by=("staged-write",), needs="cuda")
def staged_uva_written_at_call() -> Target:
    """A UVA-backed StagedWriteTensor's apply_write stores into the pinned host tensor at the call ("UVA memory is
    host memory"), not on the stream: a reader queued before the apply reads the new values."""

    class Staged(U.StagedWriteTensor):
        def apply_write(self) -> None:
            if self._uva_buf is None or not self._staged_write_indices:
                super().apply_write()
                return
            positions, values = self.staged_positions()  # converted on the host: nothing waits for the stream
            self._uva_buf.cpu.view(-1)[torch.from_numpy(positions)] = torch.tensor(values, dtype=self.dtype)
            self.clear_staged_writes()

    return reference_target("staged_uva_written_at_call", buffer_utils=_utils(StagedWriteTensor=Staged))
