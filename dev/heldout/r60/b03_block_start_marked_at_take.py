"""b03 (GPU): a large payload's block has its ``start`` recorded as soon as it is taken, before the host copy.

Where: ``h2d_impl/h2d.py::_copy_pooled`` (every payload over 256 KiB: ndarrays, pageable tensors and lists of
prefill size, and every ``out=`` call of that size).

Change: the ``mark_start`` call moved up to the ``take``, as the small pool does it ("record the start when the block
becomes ours, like ``_small_start``: the start/done pair then brackets the block's whole use, and nothing between
the take and the DMA can forget it")::

    block = pool.take(nbytes)                                          # reference
    try:
        staging = block.tensor(source.shape, dtype)
        _host_copy(staging, source)
        pool.mark_start(block)  # right before the DMA: nothing but our copy between start and done
        result = _dma(staging, target, out)

    block = pool.take(nbytes)                                          # bug
    try:
        pool.mark_start(block)  # the block is ours from here
        staging = block.tensor(source.shape, dtype)
        _host_copy(staging, source)
        result = _dma(staging, target, out)

With one thread nothing changes: the host copy queues no GPU work, so the start still lands right before the DMA.
But the host copy of a large payload takes milliseconds (one OpenMP region: about 1 ms for 4 MiB, 10 ms for
64 MiB), and the pool's lock does not stop *another* thread from queueing work on the same stream meanwhile (a model
thread launching the forward pass, a sampler, another pool's copies). The start then sits before that work and the
DMA after it. The large pool reads "the oldest block's start has completed" as "the stream is running our own
copy: waiting for its ``done`` costs one DMA" (``_take``'s ``wait_if_started`` branch); here the start completes
when the stream reaches the other thread's kernel, so a later call that finds the pool at its depth (three blocks of
at most 4 MiB, two above) waits for the whole kernel, where the reference, whose start is still queued behind that
kernel, pins one more block and returns. Values stay right; the calls stall behind other threads' work.

Promise broken: h2d_impl/_staging.py ``StagingPool.mark_start``: "Record ``chunk``'s start on its stream, right
before the first copy reading it is issued. After the host copy, not in :meth:`take`: with the start recorded
before a long host copy, another thread could queue a kernel on the same stream between the start and the DMA, and
'its start has completed' would no longer mean 'only our copy is left'"; h2d_impl/h2d.py ``async_tensor_h2d``
docstring: "the host waits only for its own copies already running on the DMA engine, or when a size class already
holds its cap ... queued behind other work"; docs/reference.md, How it stages: "waits if the oldest block's copy
has already started (its own DMA: at most one block's DMA ...)".

Smallest input (one CUDA device, two threads on the default stream, ``f = target().async_tensor_h2d``,
``x = np.ones(1 << 24, np.int32)``, 64 MiB: blocks of 64 MiB, a depth of two): ``f(x, device="cuda:0")`` twice and
``torch.cuda.synchronize()`` (two finished blocks, the spelling resolved); then thread B sleeps 2 ms and queues
``torch.cuda._sleep(2_000_000_000)`` (about 1 s) while thread A makes three calls ``f(x, device="cuda:0")`` (B's
launch lands inside the first call's host copy of 64 MiB, which reuses a finished block, so takes no
``cudaHostAlloc``). Reference: the three calls return in milliseconds (the third pins a third block:
``staging_stats()['cuda:0/67108864']`` 3 allocations, 0 waits). Bug: the third call returns only when B's spin has
ended (2 allocations, 1 wait). A simulated clock (B's kernel queued inside the first of four 4 MiB calls, depth
three) gives the reference 4 allocations and 0 waits, the bug 3 allocations and 1 wait at the fourth call.
One thread per stream (the kit's step-loop threads) or one thread alone: no difference. Nothing of it runs for a
host target.
"""

from __future__ import annotations

import time

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the forked h2d module's globals: _staging, _host_copy, _dma)


def _copy_pooled(
    source: torch.Tensor,
    dtype: torch.dtype,
    target: torch.device,
    out: torch.Tensor | None,
    min_block: int,
    *,
    pin: bool,
) -> torch.Tensor:
    """Stage ``source`` whole in one block of its size class's pool (one host copy), then one non_blocking copy."""
    traced = bool(_staging.TRACE_PATH)
    if traced:
        t0 = time.perf_counter()
    nbytes = source.numel() * dtype.itemsize
    block_bytes = max(min_block, 1 << (nbytes - 1).bit_length())
    pool = _staging.pool_for(target, block_bytes, pin, small=False)
    with pool.lock:  # held until the copy reading the block is queued (its event then covers it)
        block = pool.take(nbytes)
        try:
            pool.mark_start(block)  # BUG (r60 b03): the start recorded at the take, before the host copy
            if traced:
                t1 = time.perf_counter()
            staging = block.tensor(source.shape, dtype)
            _host_copy(staging, source)  # parallel at the defaults (payloads > SMALL_MAX_BYTES = SERIAL_COPY_MAX_BYTES)
            if traced:
                t2 = time.perf_counter()
            result = _dma(staging, target, out)
        finally:
            pool.give_back(block)  # also when a copy raised: the block stays the pool's (outside review)
    if traced and (time.perf_counter() - t0) > 5e-3:
        _staging.trace(
            f"copy_pooled {(time.perf_counter() - t0) * 1e3:.2f} ms {nbytes} B: take={(t1 - t0) * 1e3:.2f} host={(t2 - t1) * 1e3:.2f} {pool.stats()}"
        )
    return result


def target() -> Target:
    f = fork("b03", h2d={"_copy_pooled": _copy_pooled})
    return make_target(
        "b03_block_start_marked_at_take",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03"),
    )
