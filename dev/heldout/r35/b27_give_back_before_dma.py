"""b27 (GPU only): a large-payload staging block is given back to its pool before its DMA is issued.

The change: in ``h2d._copy_pooled``, ``pool.give_back(block)`` (which records the block's
``done`` event on the stream) moved from after ``_dma(...)`` to right after the host copy:
the ``try/finally`` now closes before the DMA is queued.

Why an engineer writes it: "give the block back as early as possible" (the finally then
also covers only the host copy, the only step thought able to raise), and the lock is
still held until the DMA is queued, so it looks race-free.

What breaks (CUDA only: host targets never stage through the pools): the ``done`` event
now precedes the copy that reads the block in stream order, so it completes before that
DMA has run, and the next call of the same size class reuses the block
(``_first_done``) and overwrites it on the host while the previous DMA is still queued
or running. Documented: "Every chunk or block in flight carries ``start`` and ``done``
CUDA events and is reused only after ``done`` completes"; "the source may be overwritten
as soon as the call returns" (snapshot). Scenario: on an idle stream, ``r1 =
async_tensor_h2d(a, device="cuda"); r2 = async_tensor_h2d(b, device="cuda")`` with ``a``,
``b`` two different 8 MiB int32 arrays built beforehand (same 8 MiB class, fresh pool);
after ``torch.cuda.synchronize()`` ``r1`` holds ``b``'s values in part (snapshot contract,
``check_back_to_back``; multi-stream; step-loop). Seen on one H200 (torch 2.11, the same
reordering applied to the reference in a scratch process): 20 of 20 first results
corrupted at 8 and at 64 MiB, 0 of 20 for the reference; at 1 MiB the DMA outran the
second host copy (0 of 20). repro.py shows it on the host with a simulated stream.
"""

from __future__ import annotations

import time

from ._common import fork, fork_target


def _copy_pooled(source, dtype, target, out, min_block, *, pin):
    traced = bool(_staging.TRACE_PATH)
    if traced:
        t0 = time.perf_counter()
    nbytes = source.numel() * dtype.itemsize
    block_bytes = max(min_block, 1 << (nbytes - 1).bit_length())
    pool = _staging.pool_for(target, block_bytes, pin, small=False)
    with pool.lock:
        block = pool.take(nbytes)
        try:
            if traced:
                t1 = time.perf_counter()
            staging = block.tensor(source.shape, dtype)
            _host_copy(staging, source)
            if traced:
                t2 = time.perf_counter()
            pool.mark_start(block)
        finally:
            pool.give_back(block)  # BUG: given back (done recorded) before the DMA below is queued
        result = _dma(staging, target, out)
    if traced and (time.perf_counter() - t0) > 5e-3:
        _staging.trace(
            f"copy_pooled {(time.perf_counter() - t0) * 1e3:.2f} ms {nbytes} B: take={(t1 - t0) * 1e3:.2f} host={(t2 - t1) * 1e3:.2f} {pool.stats()}"
        )
    return result


def target():
    return fork_target("b27-give-back-before-dma", fork("b27", h2d={"_copy_pooled": _copy_pooled}))
