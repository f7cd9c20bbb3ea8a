"""Mutants for the GPU kinds the outside rounds r39, r41 and r43 found missing on an H200 (CUDA-only bugs).

Each is the reference with one realistic change of the kind; all need CUDA (their bugs live in
pinned staging, UVA views and device copies that a CPU host never makes).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Any
from unittest import mock

import torch

from h2d_contracts.h2d_impl import _staging as _P
from h2d_contracts.h2d_impl import buffer_utils as U
from h2d_contracts.h2d_impl import h2d as R
from h2d_contracts.h2d_impl.buffer import row_count

from ..targets import Target
from .base import ReferenceBuffer, mutant, reference_target
from .buffer_utils import _utils
from .gpu import _with_pools


@mutant(killed_by=("uva",), needs="cuda", by=("prop_uva_kernel_time",))
def uva_rows_copied() -> Target:
    """``UvaBuffer.uva(n)`` returns a non-blocking DMA of the rows ("one copy is cheaper than kernels reading over
    PCIe"): right values at the copy, but not the host's memory; ``uva()`` still the view."""

    class Buffer(U.UvaBuffer):
        def uva(self, n: int | None = None) -> torch.Tensor:
            if n is None:
                return super().uva()
            return self.cpu[: row_count(n, self.cpu.shape[0])].to(self._uva.device, non_blocking=True)

    return reference_target("uva_rows_copied", buffer_utils=_utils(UvaBuffer=Buffer))


@mutant(killed_by=("uva",), needs="cuda", by=("prop_uva_rows",))
def uva_empty_view_on_host() -> Target:
    """The view of an empty buffer is its host tensor ("no bytes to map, nothing to allocate"): device code gets a
    CPU tensor."""

    class Buffer(U.UvaBuffer):
        def __init__(self, size: Any, dtype: torch.dtype) -> None:
            super().__init__(size, dtype)
            if self.cpu.numel() == 0:
                self._uva = self.cpu

    return reference_target("uva_empty_view_on_host", buffer_utils=_utils(UvaBuffer=Buffer))


@mutant(killed_by=("snapshot",), needs="cuda", by=("prop_buffer_fresh",))
def buffer_gpu_copied_from_host() -> Target:
    """``CpuGpuBuffer``'s ``.gpu`` made as a non-blocking copy of the zeroed pinned ``.cpu`` ("one DMA instead of a
    memset"): queued behind busy work, the copy reads the host's first fill."""

    class B(ReferenceBuffer):
        def __init__(self, *size: int, **kwargs: Any) -> None:
            super().__init__(*size, **kwargs)
            if self.gpu.device.type == "cuda":
                self.gpu = self.cpu.to(self.gpu.device, non_blocking=True, copy=True)

    return reference_target("buffer_gpu_copied_from_host", buffer_cls=B)


class _NewestFirst(collections.deque):  # type: ignore[type-arg]
    """A deque whose ``popleft`` pops the newest entry (``pop()`` typed by reflex)."""

    def popleft(self) -> Any:
        return self.pop()


class WaitTakesNewest(_P.StagingPool):
    """After waiting for its oldest in-flight block, the pool hands out the newest one."""

    def _take(self, want: int) -> _P._Chunk:
        if not isinstance(self._inflight, _NewestFirst):
            self._inflight = _NewestFirst(self._inflight)
        return super()._take(want)


@mutant(killed_by=("snapshot",), needs="cuda", by=("prop_queued_past_cap",))
def pool_wait_takes_newest() -> Target:
    """A staging pool at its cap waits for its oldest block, then reuses its newest (still queued): the next host
    copy overwrites bytes a queued DMA has not read."""
    return reference_target("pool_wait_takes_newest", _with_pools(WaitTakesNewest))


class TrimCountsAfterFilter(_P.StagingPool):
    """``trim`` filters the finished blocks out, then counts the finished ones in what is left (none): the memory is
    released, the books keep it."""

    def trim(self) -> int:
        if self.open is not None:
            chunk, self.open = self.open, None
            self.give_back(chunk)
        dropped = len(self._free)
        self._free.clear()
        self._inflight = collections.deque(c for c in self._inflight if not c.done.query())
        dropped += sum(1 for c in self._inflight if c.done.query())
        self.retained -= dropped * self.chunk_bytes
        return dropped * self.chunk_bytes


@mutant(killed_by=("non-blocking",), needs="cuda", by=("prop_non_blocking_after_trims",))
def trim_counts_after_filter() -> Target:
    """``empty_staging_cache`` releases finished blocks but counts none of them: the pool's books grow by a block
    each trim until it believes it is at its cap and waits behind queued work."""
    fn = _with_pools(TrimCountsAfterFilter)
    return dataclasses.replace(reference_target("trim_counts_after_filter", fn), empty_cache=fn.empty_cache)  # type: ignore[attr-defined]


@functools.cache
def _probe_on_default_device() -> bool:
    """The pinned-memory probe without ``device="cpu"`` ("torch.empty makes host tensors"), cached."""
    if not torch.cuda.is_available():
        return False
    try:
        torch.empty(1, dtype=torch.uint8, pin_memory=True)
    except RuntimeError:
        return False
    return True


@mutant(killed_by=("staging",), needs="cuda", by=("prop_staging_fresh_default_device",))
def pin_probe_on_default_device() -> Target:
    """The cached pinned-memory probe allocates on the default device: a process whose first call runs under
    ``torch.device("cuda")`` caches "no pinned memory", and every later call stages through pageable memory."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        with mock.patch.object(R, "pin_memory_available", _probe_on_default_device):
            return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("pin_probe_on_default_device", fn)


# --- the GPU kinds the outside round r45 found missing ---


class _StreamWideDone:
    """A chunk's done event whose ``synchronize`` waits for the chunk's whole stream (``stream.synchronize()``)."""

    def __init__(self, event: Any, stream: Any) -> None:
        self.event, self.stream = event, stream

    def synchronize(self) -> None:
        self.stream.synchronize()

    def query(self) -> bool:
        return bool(self.event.query())

    def __getattr__(self, name: str) -> Any:
        return getattr(self.event, name)


class CapWaitSyncsStream(_P.StagingPool):
    """At its cap the pool waits for its oldest block's stream, not the block's own done event."""

    def _take(self, want: int) -> _P._Chunk:
        oldest = self._inflight[0] if self._inflight else None
        if oldest is None or oldest.stream is None or isinstance(oldest.done, _StreamWideDone):
            return super()._take(want)
        real = oldest.done
        oldest.done = _StreamWideDone(real, oldest.stream)
        try:
            return super()._take(want)
        finally:
            if oldest.done.__class__ is _StreamWideDone:
                oldest.done = real


@mutant(killed_by=("non-blocking",), needs="cuda", by=("prop_cap_wait_for_oldest_copy",))
def cap_wait_syncs_whole_stream() -> Target:
    """A staging pool at its cap waits with ``oldest.stream.synchronize()`` ("the stream is where its copy runs")
    instead of the block's done event: the call waits for everything queued after that copy, the next forward pass
    included."""
    return reference_target("cap_wait_syncs_whole_stream", _with_pools(CapWaitSyncsStream))


def _scalar_as_fill(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
    if out is None and isinstance(data, torch.Tensor) and data.numel() == 1 and data.is_pinned():
        target = R._resolve_device(device)
        # "a one-element DMA costs a launch; a fill costs one too and needs no staging"
        return torch.full(tuple(data.shape), data.item(), dtype=dtype or data.dtype, device=target)
    return R.async_tensor_h2d(data, device, dtype, out)


@mutant(killed_by=("snapshot",), needs="cuda", by=("prop_pinned_hazard_small",))
def pinned_scalar_sent_as_fill() -> Target:
    """A pinned one-element tensor is sent as ``torch.full(shape, x.item())``: no DMA, so a hidden snapshot (an
    overwrite before the copy would have run never reaches the device) and NaN payloads rewritten."""
    return reference_target("pinned_scalar_sent_as_fill", _scalar_as_fill)


def _scalar_as_fill_off_the_hot_path(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
    if type(device) in R._CACHEABLE and R._RESOLVED.get((type(device), device)) is not None:
        return R.async_tensor_h2d(data, device, dtype, out)  # a spelling the hot path has resolved: its DMA
    return _scalar_as_fill(data, device, dtype, out)  # the general path's zero-copy branch: the fill


@mutant(killed_by=("snapshot",), needs="cuda", by=("prop_pinned_hazard_small",))
def pinned_scalar_fill_off_the_hot_path() -> Target:
    """The fill of :func:`pinned_scalar_sent_as_fill` in the general path alone: a spelling of the device that is
    already resolved (``torch.device("cuda", 0)``, ``"cuda:0"``, ``0`` after their first call) takes the hot path's
    DMA; bare ``"cuda"``, a numpy index and every spelling's first call get the fill (an outside round's GPU bug, r45,
    changed only the general path's zero-copy branch)."""
    return reference_target("pinned_scalar_fill_off_the_hot_path", _scalar_as_fill_off_the_hot_path)


class _PageableByDefault(ReferenceBuffer):
    def __init__(
        self, *size: int, dtype: torch.dtype, device: Any, pin_memory: bool | None = False, with_numpy: bool = True
    ) -> None:
        super().__init__(*size, dtype=dtype, device=device, pin_memory=pin_memory, with_numpy=with_numpy)


@mutant(killed_by=("buffer",), needs="cuda", by=("prop_buffer_default_pinning",))
def buffer_default_not_pinned() -> Target:
    """``CpuGpuBuffer``'s ``pin_memory`` defaults to ``False`` ("explicit is better"): every buffer an engine builds
    without the argument is pageable, and its ``copy_to_gpu`` waits for the stream."""
    return reference_target("buffer_default_not_pinned", buffer_cls=_PageableByDefault)


class _PinnedOnlyForCudaTwin(ReferenceBuffer):
    """``CpuGpuBuffer`` that pins ``.cpu`` only when its twin is on CUDA ("pinning only helps a DMA")."""

    def __init__(
        self, *size: int, dtype: torch.dtype, device: Any, pin_memory: bool | None = None, with_numpy: bool = True
    ) -> None:
        if torch.device(device).type != "cuda":
            pin_memory = False
        super().__init__(*size, dtype=dtype, device=device, pin_memory=pin_memory, with_numpy=with_numpy)


@mutant(killed_by=("buffer",), needs="cuda", by=("prop_buffer_default_pinning",))
def buffer_pinned_only_for_cuda_twin() -> Target:
    """``CpuGpuBuffer(..., device="cpu", pin_memory=True)`` on a CUDA host leaves ``.cpu`` pageable (pinned only for a
    CUDA twin): vLLM's buffer pins whatever the twin's device (an outside round's GPU bug, r46)."""
    return reference_target("buffer_pinned_only_for_cuda_twin", buffer_cls=_PinnedOnlyForCudaTwin)


class _StagedBoundOnDevice(U.StagedWriteTensor):
    """``apply_write`` that first checks the staged positions' bound on the device with ``.item()``."""

    def apply_write(self) -> None:
        positions, _ = self.staged_positions()
        if len(positions):
            where = torch.as_tensor(positions).to(self.gpu.device, non_blocking=True)
            if int(where.max().item()) >= self.gpu.numel():  # .item() of a device tensor: waits for the stream
                raise IndexError("a staged write lies past the tensor")
        super().apply_write()


@mutant(killed_by=("non-blocking",), needs="cuda", by=("prop_buffer_utils_non_blocking",))
def staged_apply_reads_device_bound() -> Target:
    """``StagedWriteTensor.apply_write`` adds a bounds check that reads a device tensor's ``max()`` on the host:
    every apply waits for the stream's queued work (an outside round's GPU bug, r46)."""
    return reference_target(
        "staged_apply_reads_device_bound", buffer_utils=_utils(StagedWriteTensor=_StagedBoundOnDevice)
    )


class _PageableSlots(U.UvaBufferPool):
    """``UvaBufferPool`` whose slots are always ``NonUvaBuffer`` ("the copy-backed buffer works everywhere")."""

    def __init__(self, size: Any, dtype: torch.dtype, max_concurrency: int | None = None) -> None:
        super().__init__(size, dtype, max_concurrency)
        self._buffer_cls = U.NonUvaBuffer
        self._uva_bufs = [U.NonUvaBuffer(self._shape, self.dtype) for _ in range(self.max_concurrency)]


@mutant(killed_by=("non-blocking",), needs="cuda", by=("prop_buffer_utils_non_blocking",))
def pool_slots_always_pageable() -> Target:
    """``UvaBufferPool`` builds every slot as a ``NonUvaBuffer`` even where UVA is available: each ``copy_to_uva``
    is a copy from pageable memory that waits for the stream (an outside round's GPU bug, r46)."""
    return reference_target("pool_slots_always_pageable", buffer_utils=_utils(UvaBufferPool=_PageableSlots))
