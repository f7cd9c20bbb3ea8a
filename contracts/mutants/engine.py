"""Mutants whose bug shows only under an engine's patterns: killed by the ``step-loop`` and ``multi-stream`` contracts.

Each is the reference with one change that every single call survives: something kept per
call that a loop of fresh inputs turns into growth, a memo that a fresh tensor at a reused
address defeats, or a staging pool whose completion event is recorded on another stream
than the copy's.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import torch

from h2d_contracts.h2d_impl import _staging as _P
from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import ReferenceBuffer, mutant, reference_target
from .gpu import _with_pools


@mutant(killed_by=("step-loop",), by=("prop_step_loop_fresh", "prop_step_loop"))
def every_input_kept_alive() -> Target:
    """every host tensor and array passed in is appended to a list "until its copy is done", and the list is never pruned: one retained input per call."""
    kept: list[Any] = []

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if not isinstance(data, list):
            kept.append(data)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("every_input_kept_alive", fn)


@mutant(killed_by=("step-loop",), by=("prop_step_loop_fresh", "prop_step_loop"))
def buffers_registered_forever() -> Target:
    """every CpuGpuBuffer registers itself in a module-level list (for a debug dump) and is never removed: dropped buffers stay alive."""
    registry: list[Any] = []

    class B(ReferenceBuffer):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            registry.append(self)

    return reference_target("buffers_registered_forever", buffer_cls=B)


@mutant(killed_by=("step-loop",), by=("prop_step_loop_fresh", "prop_step_loop"))
def tensor_memo_by_address() -> Target:
    """uploads of host tensors are memoised by (data pointer, version counter, shape, dtype): a fresh tensor the allocator places at a freed one's address, filled once, hits the stale entry."""
    memo: dict[Any, torch.Tensor] = {}

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, torch.Tensor) and out is None and data.numel():
            key = (data.data_ptr(), data._version, tuple(data.shape), data.dtype, dtype, str(device))
            hit = memo.get(key)
            if hit is not None:
                return hit.clone()
            memo[key] = result = R.async_tensor_h2d(data, device, dtype, out)
            if len(memo) > 64:
                memo.pop(next(iter(memo)))
            return result
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("tensor_memo_by_address", fn)


class DoneOnDefaultStream(_P.StagingPool):
    """The completion event of a staging chunk is recorded on the device's default stream, not the stream that copied."""

    def give_back(self, chunk: Any) -> None:
        if self.clock is not None:
            chunk.stream = torch.cuda.default_stream(self.device)
        super().give_back(chunk)


@mutant(killed_by=("multi-stream",), needs="cuda", by=("prop_multi_stream", "prop_multi_stream_table"))
def staging_event_on_default_stream() -> Target:
    """the staging pool records a chunk's completion event on the default stream: a copy queued on a busy side stream is
    taken as done once the idle default stream passes the event, and the next call overwrites its pinned bytes."""
    return reference_target("staging_event_on_default_stream", _with_pools(DoneOnDefaultStream))


class OpenChunkKeptAcrossStreams(_P.StagingPool):
    """The small pool closes its open chunk only when it is full, not when the current stream changes.

    In ``_small_start``, which both small routes reach (``small_tensor`` and the numpy-written ``small_array``): until
    2026-12-06 the mutation was in ``small_tensor`` alone, which the int lists, ndarrays and tensors of the contract's
    table no longer call (they go through ``small_array`` since the numpy-written path), so the mutant was the
    reference there and survived the GPU hunt (tests/reference/test_staging_pool.py checks both routes now)."""

    def _small_start(self, nbytes: int) -> tuple[_P._Chunk, int]:
        if self.open is not None:  # the open chunk follows the current stream: the reference's key test never differs
            self.open_key = _P._qualified_key(self.stream_key())
        return super()._small_start(nbytes)


@mutant(killed_by=("multi-stream",), needs="cuda", by=("prop_multi_stream_table",))
def small_chunk_shared_across_streams() -> Target:
    """the small-payload pool keeps filling its open chunk when the current stream changes (one stream query saved):
    a copy queued on a busy stream reads a slice of a chunk whose completion event is on an idle one, which takes the
    chunk back and overwrites it."""
    return reference_target("small_chunk_shared_across_streams", _with_pools(OpenChunkKeptAcrossStreams))


@mutant(killed_by=("multi-stream", "step-loop"), needs="cuda", by=("prop_multi_stream_table", "prop_step_loop"))
def pinned_ndarray_read_in_place() -> Target:
    """an ndarray over pinned memory (a CpuGpuBuffer's .np) is DMA'd in place like a pinned tensor ("already pinned"):
    the host's refill right after the call lands in the queued copy (arrays may be overwritten once the call returns)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, np.ndarray) and data.flags.c_contiguous and data.dtype.isnative:
            source = torch.from_numpy(data)
            want = dtype if dtype is not None else out.dtype if out is not None else source.dtype
            if source.is_pinned() and source.dtype == want and (out is not None or device is not None):
                if out is not None and tuple(out.shape) == tuple(source.shape) and out.device.type == "cuda":
                    return cast(torch.Tensor, out.copy_(source, non_blocking=True))
                if out is None and torch.device(device).type == "cuda":
                    return source.to(device, non_blocking=True)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("pinned_ndarray_read_in_place", fn)
