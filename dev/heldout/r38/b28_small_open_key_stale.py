"""b28 (GPU-only, _staging.py ``StagingPool.small_tensor``): a newly opened chunk does not record its stream key.

What changed: ``self.open, self.open_key, self.open_off = chunk, key, 0`` became
``self.open, self.open_off = chunk, 0``: ``open_key`` keeps its initial ``0``.

Why an engineer would write it: a tidy-up of a triple assignment ("``open_key`` is set in
``__init__``"). On the legacy default stream (raw handle 0) nothing changes, so single-stream
tests pass. On any other stream every small call sees ``key != open_key``, closes the open
chunk (an event) and takes another: one 1 MiB chunk and one event per call instead of one
per 16,384 calls. Behind a busy side stream the chunks cannot be reused, so the pool grows
by 1 MiB per call until its cap (``SMALL_MAX_RETAINED_BYTES``, 64 MiB) and from the 65th call on
*waits for the stream* (``oldest.done.synchronize()``): the host blocks behind queued work.

Observable (CUDA only: the small pool stages CUDA targets only): ``s = torch.cuda.Stream()``;
``with torch.cuda.stream(s): torch.cuda._sleep(10**9); [async_tensor_h2d([i], device="cuda") for i in range(10)]``
(a fresh target). Reference: ``staging_stats()["cuda:0/1048576/small"]["allocations"] == 1``.
Bug: ``10`` (no closed chunk is done behind the sleep, so each call allocates); from the 65th
such call on, each call waits for the sleep to end. (On an idle side stream the closed chunks
finish at once and are reused: the bug then costs one event and one chunk swap per call.
torch's default stream has raw handle 0, the initial ``open_key``, so default-stream calls
are unaffected.)

Promise broken: docs/reference.md "a small call allocates nothing and records no event" (the
chunk "is closed (one event) when full or when the current stream changes"); non-blocking
("the calls never waiting for the queued forward pass", step-loop side-stream and threads
modes, multi-stream schedules); hygiene (pinned memory grows to the cap per stream).

Mechanism check on a CPU-only host: ``r38/gpu_sim.py`` (a simulated clock with two streams).
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
        self.open, self.open_off = chunk, 0  # BUG: open_key not recorded: every call off stream key 0 reopens
    start = self.open_off
    self.open_off = start + (nbytes + ALIGN - 1) // ALIGN * ALIGN  # noqa: F821
    return chunk.tensor(shape, dtype, start)


class BuggyStagingPool(_staging.StagingPool):
    small_tensor = rebind(small_tensor, _staging)


def _fork() -> Fork:
    return fork("b28", _staging={"StagingPool": BuggyStagingPool})


def target() -> Target:
    f = _fork()
    return make_target(
        "b28_small_open_key_stale",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
