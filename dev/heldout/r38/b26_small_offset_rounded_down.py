"""b26 (GPU-only, _staging.py ``StagingPool.small_tensor``): the open chunk's offset advances by the payload rounded *down* to ``ALIGN``.

What changed: ``self.open_off = start + (nbytes + ALIGN - 1) // ALIGN * ALIGN`` became
``self.open_off = start + nbytes // ALIGN * ALIGN``.

Why an engineer would write it: "``x // ALIGN * ALIGN`` is the usual alignment idiom" (it is,
for aligning a *start*); the next slice still starts on a 64-byte boundary, so nothing looks
misaligned. But a payload under 64 bytes no longer advances the offset at all, and a larger
one advances past only its whole 64-byte blocks: the next small call's slice overlaps the
tail (or all) of the previous call's staging bytes while that call's DMA may still be queued.

Observable (CUDA only: the small pool stages CUDA targets only): behind queued work on the
current stream (e.g. ``torch.cuda._sleep(10**8)``), ``a = async_tensor_h2d([1], dtype=torch.int32,
device="cuda"); b = async_tensor_h2d([2], dtype=torch.int32, device="cuda");
torch.cuda.synchronize()``. Reference: ``a == [1]``, ``b == [2]``. Bug: both slices start at
the same byte; the host writes ``2`` over ``1`` before ``a``'s DMA runs: ``a == [2]``. On an
idle stream the DMA usually wins the race, so the bug shows only when the stream is busy.

Promise broken: docs/reference.md "On CUDA data is staged ... the source may be overwritten as
soon as the call returns" and "Every chunk or block in flight ... is reused only after ``done``
completes"; contracts.md snapshot ("two calls queued back to back, the second with other
values, both land"), multi-stream, concurrency.

Mechanism check on a CPU-only host: ``r38/gpu_sim.py`` (two slices share their first byte).
"""

from __future__ import annotations

import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._common import Fork, buffer_utils_ns, fork, make_target, rebind


def small_tensor(self, shape: torch.Size, dtype: torch.dtype, nbytes: int) -> torch.Tensor:
    """A contiguous ``dtype`` tensor of ``shape`` (``nbytes`` bytes) in the open chunk."""
    key = self.stream_key()
    chunk = self.open
    if chunk is None or key != self.open_key or self.open_off + nbytes > self.chunk_bytes:
        if chunk is not None:
            self.open = None  # closed before the next take, which may raise (no second give_back)
            self.give_back(chunk)
        chunk = self.take()
        self.mark_start(chunk)  # a small pool never waits on its start: before the host copy is fine
        self.open, self.open_key, self.open_off = chunk, key, 0
    start = self.open_off
    self.open_off = start + nbytes // ALIGN * ALIGN  # BUG: rounded down: a slice's tail (or all of it) is handed out again  # noqa: F821
    return chunk.tensor(shape, dtype, start)


class BuggyStagingPool(_staging.StagingPool):
    small_tensor = rebind(small_tensor, _staging)


def _fork() -> Fork:
    return fork("b26", _staging={"StagingPool": BuggyStagingPool})


def target() -> Target:
    f = _fork()
    return make_target(
        "b26_small_offset_rounded_down",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
