"""b19 (GPU-only): payloads of at most 256 KiB are staged in pageable (unpinned) chunks.

Where: ``h2d._to_device``, the small-payload branch: the reference takes its slice from
``_staging.pool_for(target, small_chunk, pin, small=True)``, a pool of pinned 1 MiB
chunks. The bug passes ``False`` for ``pin`` there ("a 64-byte copy is latency-bound
either way; don't lock a 1 MiB chunk per stream for it").

Why realistic: a memory saving argued from latency; but a ``non_blocking`` copy from
pageable memory is not asynchronous: CUDA synchronises the stream before staging it
through the driver's own buffer, so every small call (token ids, positions, slot
mappings: the hot path) now waits for the forward pass queued before it, and the
profiler shows ``Memcpy HtoD (Pageable -> Device)``. Values stay right.

On a CPU-only host ``_to_device`` is never reached (host targets take ``_stage``): every
call behaves as the control. On one CUDA GPU: ``torch.cuda._sleep(int(2e9))`` (about a
second of queued work), then ``t0 = time.perf_counter(); async_tensor_h2d([1, 2, 3],
device="cuda:0"); dt = time.perf_counter() - t0``: the reference returns in tens of
microseconds, the bug only after the sleep has run (``dt`` about the queued work); under
``torch.profiler`` the bug's copy is "Pageable -> Device".
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging as _ref_staging
from plumbing import bu_fork, fork, make_target


def _to_device(
    data,
    source,
    dtype,
    target,
    out,
    *,
    pin,
    min_block=_ref_staging.MIN_BLOCK_BYTES,
    small_max=_ref_staging.SMALL_MAX_BYTES,
    small_chunk=_ref_staging.SMALL_CHUNK_BYTES,
):
    if _zero_copy_ok(data, source, dtype):
        if _dense(source):
            if source.is_contiguous() or (out is not None and out.stride() == source.stride()):
                return out.copy_(source, non_blocking=True) if out is not None else source.to(target, non_blocking=True)
            moved = source.to(target, non_blocking=True)
            return out.copy_(moved) if out is not None else moved.contiguous()
        if source.numel():
            count = _span_elements(source)
            if count <= GATHER_MAX_SPAN * source.numel():
                return _gather_span(source, count, target, out)
    nbytes = source.numel() * dtype.itemsize
    if nbytes <= small_max:
        pool = _staging.pool_for(target, small_chunk, False, small=True)  # BUG: was `pin` (pinned chunks)
        with pool.lock:
            staging = pool.small_tensor(source.shape, dtype, nbytes)
            staging.copy_(source) if nbytes <= _TORCH_GRAIN else _host_copy(staging, source)
            return _dma(staging, target, out)
    return _copy_pooled(source, dtype, target, out, min_block, pin=pin)


def target() -> Target:
    f = fork("b19", h2d={"_to_device": _to_device})
    return make_target(
        "b19_small_staging_pageable",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b19"),
    )
