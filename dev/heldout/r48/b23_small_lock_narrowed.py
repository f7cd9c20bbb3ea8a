"""b23 (GPU-only): the small-payload path holds the pool's lock only while it takes its slice, not until the copy reading the slice is queued.

Where: ``h2d_impl/h2d.py::_to_device``, the small-payload branch (at most 256 KiB to a CUDA
device).

Change (the ``with`` block narrowed)::

    with pool.lock:                                   # reference: slice, host copy and DMA under the lock
        staging = pool.small_tensor(source.shape, dtype, nbytes)
        staging.copy_(source) ...
        return _dma(staging, target, out)

    with pool.lock:                                   # bug: "a shorter critical section"
        staging = pool.small_tensor(source.shape, dtype, nbytes)
    staging.copy_(source) ...
    return _dma(staging, target, out)

Single-threaded, nothing changes. With several threads, another thread can close the open
chunk (its stream differs, or the chunk is full) between this thread's slice and its DMA:
the chunk's ``done`` event is then recorded *before* this thread's copy is queued, so the
chunk counts as finished and is handed out again and overwritten while that copy has not
read it yet. The result then holds another call's bytes. Which call loses depends on the
interleaving.

Promise broken: README, concurrency: "8 threads x 10,000 calls give exactly the right
result every time"; docs/reference.md: "Every chunk or block in flight carries `start` and
`done` CUDA events and is reused only after `done` completes ... a pool's lock is held until
the copy reading its block is issued"; h2d_impl/h2d.py ``async_tensor_h2d`` docstring: "A
chunk or block is reused only after a CUDA event says its copies ran".

On a CPU-only host every public call behaves as the control's (no pool; single- and
multi-threaded host calls never reach this branch).

GPU input: 8 threads, each with its own ``torch.cuda.Stream``, each making 10,000 calls
``async_tensor_h2d(list_of_its_own_ints, device='cuda')`` and checking every result after
synchronising its stream (the concurrency contract). Reference: every result equals its
list. Bug: some results hold another call's values (a chunk closed by a stream change and
reused before the copy that was taking its slice was queued).
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import bu_fork, fork, make_target

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
    """The device half of :func:`async_tensor_h2d`, after validation: zero-copy, device gather or pooled staging.

    ``source`` is the validated host tensor of ``data``; ``target`` the resolved device;
    ``pin`` whether staging is pinned. Payloads of at most ``small_max`` bytes are staged in
    one slice of the small pool's open chunk (``small_chunk`` bytes); larger ones whole, in
    one block of the pool of their size class (the next power of two, at least
    ``min_block`` bytes). Either way: one host copy, then one copy into the destination
    issued with ``non_blocking=True`` on the current stream of ``target``; zero-copy inputs
    are read from ``data``'s own pinned memory.

    Written device-generically (nothing here names CUDA) so that its decisions can be
    checked on a CPU-only machine with ``target=cpu`` under a simulated pinned allocator
    (tests/test_h2d_impl_trace.py); on a real GPU the contracts check them.
    """
    if _zero_copy_ok(data, source, dtype):
        if _dense(source):
            if source.is_contiguous() or (out is not None and out.stride() == source.stride()):
                return out.copy_(source, non_blocking=True) if out is not None else source.to(target, non_blocking=True)
            # Dense in a permutation (transposed, channels-last): DMA the storage as it lies (.to
            # keeps the strides), then reorder on the device, on the same stream: no host pass
            # (staging a 16 MiB transposed tensor cost 11.7 ms of host time on the H200,
            # measured by the bench, see docs/performance.md).
            moved = source.to(target, non_blocking=True)
            return out.copy_(moved) if out is not None else moved.contiguous()
        if source.numel():
            count = _span_elements(source)
            if count <= GATHER_MAX_SPAN * source.numel():
                return _gather_span(source, count, target, out)
    nbytes = source.numel() * dtype.itemsize
    if nbytes <= small_max:
        pool = _staging.pool_for(target, small_chunk, pin, small=True)
        with pool.lock:  # BUG (r48 b23): only the slice allocation under the lock ("shorter critical section")
            staging = pool.small_tensor(source.shape, dtype, nbytes)
        # on this thread alone (small_max <= SERIAL_COPY_MAX_BYTES by default); with fewer bytes
        # than the grain's elements torch's own copy_ is serial: tested inline, two calls saved
        staging.copy_(source) if nbytes <= _TORCH_GRAIN else _host_copy(staging, source)
        return _dma(staging, target, out)
    return _copy_pooled(source, dtype, target, out, min_block, pin=pin)


def target() -> Target:
    f = fork("b23", h2d={"_to_device": _to_device})
    return make_target(
        "b23_small_lock_narrowed",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b23"),
    )
