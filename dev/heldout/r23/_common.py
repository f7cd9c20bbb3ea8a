"""Shared scaffolding: faithful copies of the reference's entry point and device half, parameterised.

Each bug module edits exactly one thing on top of these. Nothing here changes the
reference's behaviour: ``make_h2d(ref._to_device)`` is the reference's ``async_tensor_h2d``
(the staging trace diagnostics aside), and ``make_to_device()`` with its defaults is the
reference's ``_to_device``. Host targets (``device='cpu'``) always take the reference's
own host path, so every bug is invisible there.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable

import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import _staging
from h2d_contracts.h2d_impl import h2d as ref

if TYPE_CHECKING:
    from h2d_contracts.contracts import Target

CAPS = frozenset({"out", "buffer", "cpu-variant", "cuda"})

ToDevice = Callable[..., torch.Tensor]


def make_target(name: str, *, fn: Callable[..., torch.Tensor] | None = None, buffer_cls: type | None = None,
                empty_cache: Callable[[], Any] | None = None, notes: str = "") -> Target:
    """A Target like the reference's, with the pieces a bug replaces (the kit's contracts package is imported only here)."""
    from h2d_contracts.contracts import Target

    return Target(
        name=name,
        async_tensor_h2d=fn if fn is not None else h2d_impl.async_tensor_h2d,
        buffer_cls=buffer_cls if buffer_cls is not None else h2d_impl.CpuGpuBuffer,
        cpu_variant=h2d_impl.async_tensor_h2d_cpu,
        capabilities=CAPS,
        pin_memory_available=h2d_impl.pin_memory_available,
        version=h2d_impl.__version__,
        notes=notes,
        empty_cache=empty_cache if empty_cache is not None else h2d_impl.empty_staging_cache,
    )


def make_h2d(to_device: ToDevice) -> Callable[..., torch.Tensor]:
    """The reference's ``async_tensor_h2d`` (``h2d._async_h2d``) with its device half replaced by ``to_device``."""

    def async_tensor_h2d(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        source, dtype_, target = ref._prepare(data, device, dtype, out, cpu_only=False)
        if target.type == "cpu":
            if out is not None:
                return out.copy_(source)
            return ref._stage(source, dtype_, pin=False)
        pin = ref.pin_memory_available()
        count = ref._cuda_device_count()
        if count <= 1 or target.index == torch.cuda.current_device():
            return to_device(data, source, dtype_, target, out, pin=pin)
        with torch.cuda.device(target):
            return to_device(data, source, dtype_, target, out, pin=pin)

    async_tensor_h2d.__doc__ = h2d_impl.async_tensor_h2d.__doc__
    return async_tensor_h2d


def reads_in_place(data: Any, source: torch.Tensor, dtype: torch.dtype) -> bool:
    """Whether the reference DMAs ``data`` from its own pinned memory (dense zero-copy or device gather), staging nothing."""
    if not ref._zero_copy_ok(data, source, dtype):
        return False
    if ref._dense(source):
        return True
    return bool(source.numel()) and ref._span_elements(source) <= ref.GATHER_MAX_SPAN * source.numel()


def make_to_device(pool_for: Callable[..., _staging.StagingPool] = _staging.pool_for,
                   zero_copy_ok: Callable[[Any, torch.Tensor, torch.dtype], bool] = ref._zero_copy_ok) -> ToDevice:
    """A copy of the reference's ``_to_device`` / ``_copy_pooled`` taking its pools from ``pool_for`` and its zero-copy test from ``zero_copy_ok``."""

    def copy_pooled(source: torch.Tensor, dtype: torch.dtype, target: torch.device, out: torch.Tensor | None, *, pin: bool) -> torch.Tensor:
        nbytes = source.numel() * dtype.itemsize
        block_bytes = max(_staging.MIN_BLOCK_BYTES, 1 << (nbytes - 1).bit_length())
        pool = pool_for(target, block_bytes, pin, small=False)
        with pool.lock:
            block = pool.take(nbytes)
            try:
                staging = block.tensor(source.shape, dtype)
                ref._host_copy(staging, source)
                pool.mark_start(block)
                result = ref._dma(staging, target, out)
            finally:
                pool.give_back(block)
        return result

    def to_device(data: Any, source: torch.Tensor, dtype: torch.dtype, target: torch.device, out: torch.Tensor | None, *, pin: bool) -> torch.Tensor:
        if zero_copy_ok(data, source, dtype):
            if ref._dense(source):
                if source.is_contiguous() or (out is not None and out.stride() == source.stride()):
                    return out.copy_(source, non_blocking=True) if out is not None else source.to(target, non_blocking=True)
                moved = source.to(target, non_blocking=True)
                return out.copy_(moved) if out is not None else moved.contiguous()
            if source.numel():
                count = ref._span_elements(source)
                if count <= ref.GATHER_MAX_SPAN * source.numel():
                    return ref._gather_span(source, count, target, out)
        nbytes = source.numel() * dtype.itemsize
        if nbytes <= _staging.SMALL_MAX_BYTES:
            pool = pool_for(target, _staging.SMALL_CHUNK_BYTES, pin, small=True)
            with pool.lock:
                staging = pool.small_tensor(source.shape, dtype, nbytes)
                if nbytes <= ref._TORCH_GRAIN:
                    staging.copy_(source)
                else:
                    ref._host_copy(staging, source)
                return ref._dma(staging, target, out)
        return copy_pooled(source, dtype, target, out, pin=pin)

    return to_device


class PoolRegistry:
    """The bug's own staging pools (a copy of ``_staging.pool_for``'s registry) built from ``pool_cls``.

    Kept apart from the reference's ``_staging._POOLS`` so that a broken pool never serves
    the reference (the control runs in the same process in gpu_repro.py).
    """

    def __init__(self, pool_cls: type) -> None:
        self.pool_cls = pool_cls
        self.pools: dict[tuple[torch.device, int, bool, bool], _staging.StagingPool] = {}
        self.lock = threading.Lock()

    def pool_for(self, device: torch.device, chunk_bytes: int, pin: bool, *, small: bool) -> _staging.StagingPool:
        key = (device, chunk_bytes, pin, small)
        pool = self.pools.get(key)
        if pool is None:
            with self.lock:
                cap = _staging.SMALL_MAX_RETAINED_BYTES if small else max(_staging.MAX_RETAINED_BYTES, 2 * chunk_bytes)
                pool = self.pools.get(key) or self.pools.setdefault(
                    key, self.pool_cls(device, chunk_bytes, pin=pin, small=small, max_retained=cap))
        return pool

    def empty_cache(self) -> int:
        """``empty_staging_cache`` for the reference's pools and these."""
        total = _staging.empty_staging_cache()
        for pool in list(self.pools.values()):
            with pool.lock:
                total += pool.trim()
        return total


class SideStreams:
    """One dedicated copy stream per device, created on first use (as engines keep a ``copy_stream``); one registry per bug module."""

    def __init__(self) -> None:
        self.streams: dict[torch.device, Any] = {}
        self.lock = threading.Lock()

    def get(self, device: torch.device) -> Any:
        stream = self.streams.get(device)
        if stream is None:
            with self.lock:
                stream = self.streams.get(device)
                if stream is None:
                    stream = self.streams[device] = torch.cuda.Stream(device)
        return stream
