"""The small staging pool's lock is released before the host copy and the DMA are issued.

What changed: in ``h2d._to_device``'s small-payload path, the pool's lock was held from
taking a slice of the open chunk until the non-blocking copy reading it was queued. The
change holds it only around ``pool.small_tensor(...)`` (the bookkeeping): "the host copy
into our own slice needs no lock; holding it serialises every thread's host copies".

Why an engineer writes it: the slice is private to the call (no other call gets the same
bytes), so the lock looks like it guards only the offset arithmetic; with many threads the
narrower lock is measurably faster.

Promise broken: docs/reference.md ("a pool's lock is held until the copy reading its block is
issued"), ``_staging``'s invariant (a chunk's ``done`` event, recorded when the chunk is
closed, must follow every copy reading it) and the contracts "concurrency" (8 threads x
10,000 calls, every result exact) and "multi-stream". Another thread can close the chunk
(record its ``done`` event) between this thread's slice and its DMA; once that event has
passed, the chunk is reused and overwritten while this thread's copy is still to be
queued: results carry another call's bytes. GPU only (the host target never stages).

Smallest input (CUDA): 8 threads each looping ``async_tensor_h2d(list_of_4096_distinct_int32,
device="cuda")`` on its own stream and comparing every result: reference exact; bug
mismatches within a few thousand calls.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._common import fork, fork_target


def _to_device(
    data: Any,
    source: torch.Tensor,
    dtype: torch.dtype,
    target: torch.device,
    out: torch.Tensor | None,
    *,
    pin: bool,
    min_block: int = _staging.MIN_BLOCK_BYTES,
    small_max: int = _staging.SMALL_MAX_BYTES,
    small_chunk: int = _staging.SMALL_CHUNK_BYTES,
) -> torch.Tensor:
    if _zero_copy_ok(data, source, dtype):  # noqa: F821
        if _dense(source):  # noqa: F821
            if source.is_contiguous() or (out is not None and out.stride() == source.stride()):
                return out.copy_(source, non_blocking=True) if out is not None else source.to(target, non_blocking=True)
            moved = source.to(target, non_blocking=True)
            return out.copy_(moved) if out is not None else moved.contiguous()
        if source.numel():
            count = _span_elements(source)  # noqa: F821
            if count <= GATHER_MAX_SPAN * source.numel():  # noqa: F821
                return _gather_span(source, count, target, out)  # noqa: F821
    nbytes = source.numel() * dtype.itemsize
    if nbytes <= small_max:
        pool = _staging.pool_for(target, small_chunk, pin, small=True)  # noqa: F821
        with pool.lock:  # BUG: held only while the slice is taken (was: until the copy reading it is queued)
            staging = pool.small_tensor(source.shape, dtype, nbytes)
        staging.copy_(source) if nbytes <= _TORCH_GRAIN else _host_copy(staging, source)  # noqa: F821
        return _dma(staging, target, out)  # noqa: F821
    return _copy_pooled(source, dtype, target, out, min_block, pin=pin)  # noqa: F821


def target() -> Target:
    return fork_target("b27_small_pool_lock_narrowed", fork("b27", h2d={"_to_device": _to_device}))
