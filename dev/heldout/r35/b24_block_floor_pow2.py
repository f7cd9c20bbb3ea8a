"""b24 (GPU only): the staging block's size class rounds the payload *down* to a power of two.

The change: in ``h2d._copy_pooled``, ``1 << (nbytes - 1).bit_length()`` (the next power of two
at or above ``nbytes``) became ``1 << nbytes.bit_length() - 1`` (Python parses it as
``1 << (nbytes.bit_length() - 1)``: the power of two at or *below* ``nbytes``).

Why an engineer writes it: moving the ``- 1`` out of the parentheses "to avoid an int
subtraction" reads the same; both spellings are common next-power-of-two idioms, and
every test payload above 1 MiB was a power of two (1, 4, 16, 64 MiB), where both agree.

What breaks (CUDA only: ``_copy_pooled`` runs only for device targets above
``SMALL_MAX_BYTES``): any staged payload of more than 1 MiB that is not a power of two gets
a block smaller than itself; ``_Chunk.tensor`` then asks ``as_strided`` for more than the
block holds and the valid call raises ``RuntimeError`` ("setStorage: ... out of bounds for
storage of size ..."): ``async_tensor_h2d(np.zeros(262145, np.int32), device="cuda")``
(1 MiB + 4 bytes). Values contract (sizes ladder, ``2**k + 1`` rungs from 2**18 int32 up).
Seen on one H200 (torch 2.11, the 1 MiB pool forced for that payload in a scratch process):
``RuntimeError: setStorage: sizes [262145], strides [1], storage offset 0, and itemsize 4
requiring a stor[age size of 1048580 are out of bounds ...]``.
"""

from __future__ import annotations

import time

from ._common import fork, fork_target


def _copy_pooled(source, dtype, target, out, min_block, *, pin):
    traced = bool(_staging.TRACE_PATH)
    if traced:
        t0 = time.perf_counter()
    nbytes = source.numel() * dtype.itemsize
    block_bytes = max(min_block, 1 << nbytes.bit_length() - 1)  # BUG: was 1 << (nbytes - 1).bit_length() (rounds down)
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
            result = _dma(staging, target, out)
        finally:
            pool.give_back(block)
    if traced and (time.perf_counter() - t0) > 5e-3:
        _staging.trace(
            f"copy_pooled {(time.perf_counter() - t0) * 1e3:.2f} ms {nbytes} B: take={(t1 - t0) * 1e3:.2f} host={(t2 - t1) * 1e3:.2f} {pool.stats()}"
        )
    return result


def target():
    return fork_target("b24-block-floor-pow2", fork("b24", h2d={"_copy_pooled": _copy_pooled}))
