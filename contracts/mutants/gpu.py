"""Mutants that break the staging, non-blocking, snapshot, stream, device-hygiene (GPU) contracts: each the reference with one realistic bug."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import _staging as _P
from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import ReferenceBuffer, mutant, reference_target

_STAGING: dict[str, torch.Tensor] = {}


class SliceNotAdvanced(_P.StagingPool):
    """The open chunk's offset is never advanced: every small call stages into the same bytes.

    In ``_small_start``, which both small routes reach (until 2026-12-06 in ``small_tensor`` alone, which the
    numpy-written route bypasses: tests/reference/test_staging_pool.py checks both routes)."""

    def _small_start(self, nbytes: int) -> tuple[_P._Chunk, int]:
        off = self.open_off
        chunk, start = super()._small_start(nbytes)
        if nbytes and self.open_off > off:
            self.open_off = off
        return chunk, start

    def unreserve_last(self, count: int, dtype: torch.dtype) -> None:
        """Nothing was reserved: the offset stays (the reference's would go below the slice it never advanced past)."""


class ChunkReusedBeforeDone(_P.StagingPool):
    """``take`` hands out the oldest queued block without asking its completion event."""

    def take(self, want: int = 0) -> _P._Chunk:
        if self.clock is not None and self._inflight:
            chunk = self._inflight.popleft()
            chunk.stream = self.clock.current_stream()
            chunk.marked = False
            return chunk
        return super().take(want)


def _with_pools(cls: type) -> Callable[..., torch.Tensor]:
    pools: dict[tuple[torch.device, int, bool, bool], _P.StagingPool] = {}

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        saved = dict(_P._POOLS)
        _P._POOLS.clear()
        _P._POOLS.update(pools)
        try:
            return R.async_tensor_h2d(data, device, dtype, out)
        finally:
            for key, pool in _P._POOLS.items():
                if type(pool) is _P.StagingPool:  # first use: made by pool_for, replace it by the mutant's class
                    pool.__class__ = cls
                pools[key] = pool
            _P._POOLS.clear()
            _P._POOLS.update(saved)

    def empty_cache() -> int:
        """The mutant's own pools trimmed (the reference's ``empty_staging_cache`` over them)."""
        total = 0
        for pool in list(pools.values()):
            with pool.lock:
                total += pool.trim()
        return total

    fn.empty_cache = empty_cache  # type: ignore[attr-defined]
    return fn


def pooled_target(name: str, cls: type) -> Target:
    """The reference as mutant ``name`` with its staging pools of class ``cls`` (:func:`_with_pools`), whose
    ``empty_cache`` trims those pools, not the reference's."""
    fn = _with_pools(cls)
    return dataclasses.replace(reference_target(name, fn), empty_cache=fn.empty_cache)  # type: ignore[attr-defined]


@mutant(killed_by=("non-blocking",), needs="cuda")
def copy_to_cpu_synchronizing() -> Target:
    """copy_to_cpu(n) without non_blocking (a plain ``.copy_``): the host waits for all queued device work at every step."""

    class B(ReferenceBuffer):
        def copy_to_cpu(self, n: int | None = None) -> torch.Tensor:
            n = self._rows(n)
            if n is None:
                return self.cpu.copy_(self.gpu)
            return self.cpu[:n].copy_(self.gpu[:n])

    return reference_target("copy_to_cpu_synchronizing", buffer_cls=B)


def _unstaged_when(skip: Callable[[Any], bool]) -> Callable[..., torch.Tensor]:
    """The reference, except that inputs for which ``skip(data)`` holds go to a CUDA device by one non-blocking copy
    from where they are (pageable memory), not through the staging pool."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if skip(data):
            source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
            if target.type == "cuda":
                return (
                    out.copy_(source, non_blocking=True)
                    if out is not None
                    else source.to(target, dtype_, non_blocking=True)
                )
        return R.async_tensor_h2d(data, device, dtype, out)

    return fn


@mutant(killed_by=("staging", "non-blocking"), needs="cuda")
def pageable_tensor_not_staged() -> Target:
    """an unpinned tensor is copied straight from pageable memory: `data.to(device, non_blocking=True)` blocks the host."""

    def pageable(data: Any) -> bool:
        return isinstance(data, torch.Tensor) and data.device.type == "cpu" and not data.is_pinned()

    return reference_target("pageable_tensor_not_staged", _unstaged_when(pageable))


@mutant(killed_by=("staging", "non-blocking"), needs="cuda")
def pageable_ndarray_not_staged() -> Target:
    """a numpy array goes through torch.from_numpy(...).to(device, non_blocking=True): a pageable DMA."""

    return reference_target("pageable_ndarray_not_staged", _unstaged_when(lambda data: isinstance(data, np.ndarray)))


@mutant(killed_by=("staging", "non-blocking"), needs="cuda")
def strided_pinned_view_not_staged() -> Target:
    """any pinned tensor skips staging, even a column slice: torch then makes a pageable contiguous copy and blocks."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, torch.Tensor) and data.device.type == "cpu" and data.is_pinned():
            source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
            if target.type == "cuda" and source.dtype == dtype_:
                return out.copy_(source, non_blocking=True) if out is not None else source.to(target, non_blocking=True)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("strided_pinned_view_not_staged", fn)


@mutant(killed_by=("staging",), needs="cuda")
def pinned_input_restaged() -> Target:
    """already pinned inputs are copied into a new pinned buffer again (wasted allocation and bandwidth)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, torch.Tensor) and data.device.type == "cpu" and data.is_pinned():
            data = data.clone().pin_memory() if data.numel() else data.clone()
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("pinned_input_restaged", fn)


@mutant(killed_by=("snapshot",), needs="cuda")
def reused_staging_buffer() -> Target:
    """one persistent pinned staging buffer, reused by the next call without waiting for the queued copy (a race)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
        if target.type != "cuda":
            return R.async_tensor_h2d(data, device, dtype, out)
        nbytes = source.numel() * torch.empty(0, dtype=dtype_).element_size()
        buf = _STAGING.get("buf")
        if buf is None or buf.numel() < nbytes:
            buf = _STAGING["buf"] = torch.empty(max(nbytes, 1 << 20), dtype=torch.uint8, pin_memory=True)
        staging = buf[:nbytes].view(dtype_).view(source.shape) if nbytes else torch.empty(source.shape, dtype=dtype_)
        staging.copy_(source)
        return out.copy_(staging, non_blocking=True) if out is not None else staging.to(target, non_blocking=True)

    return reference_target("reused_staging_buffer", fn)


@mutant(killed_by=("stream",), needs="cuda")
def copy_on_default_stream() -> Target:
    """the copy is enqueued on the default stream, not the caller's current stream (no ordering with its work)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        target = (
            out.device
            if out is not None
            else torch.device(device)
            if not isinstance(device, int)
            else torch.device("cuda", device)
        )
        if target.type == "cuda":
            with torch.cuda.stream(torch.cuda.default_stream(target)):
                return R.async_tensor_h2d(data, device, dtype, out)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("copy_on_default_stream", fn)


@mutant(killed_by=("non-blocking",), needs="cuda")
def synchronizing_copy() -> Target:
    """the staged copy is followed by a stream synchronize ("to be safe"): every call waits for all queued work."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        result = R.async_tensor_h2d(data, device, dtype, out)
        if result.device.type == "cuda":
            torch.cuda.current_stream(result.device).synchronize()
        return result

    return reference_target("synchronizing_copy", fn)


@mutant(killed_by=("stream",), needs="2gpu")
def device_index_ignored() -> Target:
    """the device index is dropped ("cuda:1" -> "cuda"): data lands on the current device."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if device is not None and out is None:
            dev = torch.device("cuda", device) if isinstance(device, int) else torch.device(device)
            if dev.type == "cuda":
                device = "cuda"
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("device_index_ignored", fn)


@mutant(killed_by=("device-hygiene",), needs="2gpu")
def completion_event_on_current_device() -> Target:
    """a completion event is recorded on ``torch.cuda.current_stream()`` (the current device's, not the target's): a call aimed
    at cuda:1 creates a CUDA context on cuda:0, so every worker process of a multi-GPU server holds memory on GPU 0."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        result = R.async_tensor_h2d(data, device, dtype, out)
        if result.device.type == "cuda":
            torch.cuda.current_stream().record_event()
        return result

    return reference_target("completion_event_on_current_device", fn)


@mutant(killed_by=("staging",), needs="cuda")
def dense_rule_two_dims_only() -> Target:
    """the density rule holds for two dimensions only (``expected = size`` for ``expected *= size``): a pinned tensor
    dense in a permutation of three or more dimensions (sides >= 2) is staged again (mutmut ``_dense`` 13)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if (
            isinstance(data, torch.Tensor)
            and data.device.type == "cpu"
            and data.is_pinned()
            and not data.is_contiguous()
            and sum(s > 1 for s in data.shape) >= 3
        ):
            source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
            if target.type == "cuda":
                staged = R._stage(source, dtype_, pin=True)
                return out.copy_(staged, non_blocking=True) if out is not None else staged.to(target, non_blocking=True)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("dense_rule_two_dims_only", fn)


@mutant(killed_by=("non-blocking",), needs="cuda")
def permuted_pinned_blocking_copy() -> Target:
    """a pinned tensor dense in a permutation (``.t()``) is DMA'd as it lies with a blocking ``.to(device)``: the host
    waits for the stream (mutmut ``_to_device`` 28/29: ``non_blocking=True`` dropped)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if (
            isinstance(data, torch.Tensor)
            and data.device.type == "cpu"
            and data.is_pinned()
            and not data.is_contiguous()
        ):
            source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
            if target.type == "cuda" and R._zero_copy_ok(data, source, dtype_):
                moved = source.to(target)
                return out.copy_(moved) if out is not None else moved.contiguous()
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("permuted_pinned_blocking_copy", fn)


@mutant(killed_by=("non-blocking",), needs="cuda")
def buffer_full_copy_blocking() -> Target:
    """``copy_to_gpu()`` / ``copy_to_cpu()`` without ``n`` copy every row with a blocking ``copy_`` (mutmut
    ``copy_to_gpu`` 8, ``copy_to_cpu`` 8: ``non_blocking=False``); with ``n`` they are the reference's."""

    class B(ReferenceBuffer):
        def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
            return self.gpu.copy_(self.cpu) if n is None else super().copy_to_gpu(n)

        def copy_to_cpu(self, n: int | None = None) -> torch.Tensor:
            return self.cpu.copy_(self.gpu) if n is None else super().copy_to_cpu(n)

    return reference_target("buffer_full_copy_blocking", buffer_cls=B)


@mutant(killed_by=("snapshot",), needs="cuda")
def staging_slice_reused_while_queued() -> Target:
    """the small-payload pool never advances its offset in the open chunk: two calls queued behind a busy stream stage
    into the same pinned bytes, and the first copy reads the second call's values (wrong tokens)."""
    fn = _with_pools(SliceNotAdvanced)
    return reference_target("staging_slice_reused_while_queued", fn)


@mutant(killed_by=("snapshot",), needs="cuda")
def staging_chunk_reused_before_done() -> Target:
    """the large-payload pool reuses the oldest queued block without its completion event: a second large call
    overwrites the block whose DMA is still queued behind a busy stream (the first call's values are lost)."""
    fn = _with_pools(ChunkReusedBeforeDone)
    return reference_target("staging_chunk_reused_before_done", fn)


class PerThreadKeyedByHandle(_P.StagingPool):
    """The small pool before its per-thread fix: the open chunk keyed by the raw stream handle (cudaStreamPerThread is 2
    in every thread), and a chunk's completion event recorded by whichever thread closes it, on that thread's stream."""

    def copied(self) -> None:
        """Nothing: the chunk's ``done`` is recorded only by the thread that closes it (:meth:`give_back` below)."""

    def _small_start(self, nbytes: int) -> tuple[_P._Chunk, int]:
        key = self.stream_key()
        chunk = self.open
        if chunk is None or key != self.open_key or self.open_off + nbytes > self.chunk_bytes:
            if chunk is not None:
                self.open = None
                chunk.owner = None  # recorded by the closing thread
                self.give_back(chunk)
            chunk = self.take()
            self.mark_start(chunk)
            self.open, self.open_key, self.open_off = chunk, key, 0
        start = self.open_off
        self.open_off = start + _P._aligned(nbytes)
        return chunk, start


@mutant(killed_by=("snapshot",), needs="cuda", by=("prop_per_thread_streams",))
def per_thread_stream_keyed_by_handle() -> Target:
    """the small-payload pool keys its open chunk by the raw stream handle: two threads on cudaStreamPerThread (handle
    2, a different stream in each) share one chunk, the completion event the second records covers its own stream
    only, and the chunk is reused while the first thread's copy is still queued (wrong tokens; the reference before
    its fix, found by an outside review)."""
    return pooled_target("per_thread_stream_keyed_by_handle", PerThreadKeyedByHandle)


class OpenKeyStale(_P.StagingPool):
    """A newly opened small chunk does not record its stream key (it keeps the default stream's, 0).

    In ``_small_start``, which both small routes reach: until 2026-12-06 in ``small_tensor`` alone, which the
    numpy-written route (``small_array``) bypasses, so the mutant was the reference for plain inputs into their own
    dtype and survived the GPU hunt (tests/reference/test_staging_pool.py checks both routes now)."""

    def _small_start(self, nbytes: int) -> tuple[_P._Chunk, int]:
        result = super()._small_start(nbytes)
        self.open_key = 0
        return result


class TrimKeepsOpenChunk(_P.StagingPool):
    """``trim`` drops free and finished chunks only: the open small chunk is never given back."""

    def trim(self) -> int:
        chunk, self.open = self.open, None
        try:
            return super().trim()
        finally:
            self.open = chunk


@mutant(killed_by=("non-blocking",), needs="cuda")
def small_open_key_stale() -> Target:
    """the small-payload pool does not record the stream of a chunk it opens: on a side stream every small call closes
    the chunk and takes another, and behind a busy stream the pool reaches its cap and waits for the stream."""
    return reference_target("small_open_key_stale", _with_pools(OpenKeyStale))


@mutant(killed_by=("hygiene",), needs="cuda")
def trim_keeps_open_chunk() -> Target:
    """``empty_staging_cache`` never gives back the small pool's open chunk: 1 MiB of pinned memory held for good."""
    return pooled_target("trim_keeps_open_chunk", TrimKeepsOpenChunk)
