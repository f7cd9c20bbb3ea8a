"""b22 (GPU-only): the pool "waits" for its oldest block with ``Event.wait()``, a device-side wait.

Where: ``_staging.StagingPool._take``, the branch that waits for the oldest in-flight
block (the pool is at its cap, or its own copies are running). The reference blocks the
host with ``oldest.done.synchronize()`` and then hands the block out. The bug calls
``oldest.done.wait()`` ("don't stall the host: make the stream wait for the event").

Why realistic: ``Event.wait`` reads like the host wait but makes the *current stream*
wait; it returns at once. The block is handed out while the copy that reads it is still
queued, and the host copy of the next call overwrites the staged bytes before that copy
runs: an earlier result receives a later call's data. Nothing else changes (the call even
becomes non-blocking at the cap, as a "fix" would look).

On a CPU-only host the pools are never used: every call behaves as the control. On one
CUDA GPU: ``torch.cuda._sleep(int(4e9))`` (about two seconds); ``rs = [async_tensor_h2d(
np.full(64 << 20, i, np.int32), device="cuda:0") for i in range(1, 6)]`` (five 256 MiB
calls: four fill the 1 GiB cap, the fifth waits for the first block);
``torch.cuda.synchronize()``; ``rs[0].unique()``: the reference gives ``[1]``, the bug
``[5]`` (the first block was refilled with the fifth call's data before its copy ran).
"""

from __future__ import annotations


from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging as _ref_staging
from plumbing import bu_fork, fork, make_target, rebind


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
            oldest.done.wait()  # BUG: was oldest.done.synchronize() (a host wait)
            chunk = self._inflight.popleft()
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


class StagingPool(_ref_staging.StagingPool):
    __doc__ = _ref_staging.StagingPool.__doc__
    _take = rebind(_take, _ref_staging)


def target() -> Target:
    f = fork("b22", _staging={"StagingPool": StagingPool})
    return make_target(
        "b22_cap_wait_on_stream",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b22"),
    )
