"""b09 (CPU, simulated clock): after waiting for the oldest in-flight block, the pool hands out the newest one.

Where: _staging.py, ``StagingPool._take`` (the wait branch).
Change: ``chunk = self._inflight.popleft()`` -> ``chunk = self._inflight.pop()``.
Why plausible: ``pop()`` is the deque call one types by reflex (and ``_inflight`` reads like a stack
to someone who did not write it); the wait itself (``oldest.done.synchronize()``) is still right.
Promise broken: _staging module docstring: "It is reused once ``done`` has completed ... waiting for
its ``done`` costs at most one block's DMA"; async_tensor_h2d docstring: "A chunk or block is reused only
after a CUDA event says its copies ran" and "The source may be overwritten as soon as the call returns
(the copy reads the staging, a snapshot)": on CUDA the newest block's DMA may still be queued when the
next host copy overwrites it.
Smallest input (pool API, simulated clock; a pool at its cap waits: back-to-back large calls behind a busy stream):
    clock = FakeClock(); pool = StagingPool(torch.device("cpu"), 1024, pin=False, small=False, max_retained=2048, clock=clock)
    for _ in range(2): c = pool.take(); pool.mark_start(c); pool.give_back(c)    # two blocks queued, nothing ran
    c = pool.take()                                                               # waits for the oldest
Reference: ``c`` is the oldest block, its copy done. Bug: ``c`` is the newest block; ``c.done.query()`` is False.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import fork_target_full
from ._stg import staging_fork

TAG = "b09"


def _take(self, want):
    if self._free:
        chunk = self._free.pop()
    elif self.clock is None:
        chunk = self._alloc()
    else:
        oldest = self._inflight[0] if self._inflight else None
        grow = self.retained + self.chunk_bytes
        ready = None
        if self.retained < min(want, self.max_retained):
            chunk = self._alloc()
        elif oldest is not None and (ready := self._first_done()) is not None:
            chunk = ready
        elif (
            oldest is not None
            and grow > min(max(MIN_DEPTH_BYTES, 2 * self.chunk_bytes), self.max_retained)
            and ((self.wait_if_started and oldest.start.query()) or grow > self.max_retained)
        ):
            self.waits += 1
            oldest.done.synchronize()
            chunk = self._inflight.pop()  # BUG: was self._inflight.popleft() (the oldest, just waited for)
        else:
            chunk = self._alloc()
    chunk.marked = False
    if self.clock is not None:
        try:
            chunk.stream = self.clock.current_stream()
            key = self.stream_key()
            chunk.key = key if key != _PER_THREAD_STREAM else hash((key, threading.get_ident()))
            if chunk.start is None:
                chunk.start, chunk.done = self.clock.event(), self.clock.event()
        except BaseException:
            self._free.append(chunk)
            raise
    return chunk


def _fork():
    return staging_fork(TAG, _take=_take)


def target() -> Target:
    return fork_target_full("b09_wait_pops_newest", _fork())
