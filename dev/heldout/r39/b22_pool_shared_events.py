"""b22 (GPU-only, _staging.py ``StagingPool._take``): the pool makes one (start, done) event pair at its first take and gives it to every chunk; each use re-records the shared events, so a chunk queued on a busy stream looks finished once a later chunk on an idle stream has finished, and is overwritten while its copy is still queued.

What changed: in ``_take``, ``if chunk.start is None: chunk.start, chunk.done =
self.clock.event(), self.clock.event()`` became "take the pool's pair, creating it on
first use": every chunk of the pool holds the same two ``torch.cuda.Event`` objects.

Why an engineer would write it: an event is re-recordable, and on one stream the events
complete in order, so "the most recent record of done" completing implies every earlier
chunk's copies ran: one pair per pool looks equivalent and saves an event creation per
chunk (``cudaEventCreate`` shows up in the first calls' profile). With several streams
it is not: ``done`` now says whether the *latest* chunk's copy ran, on whatever stream
that was.

Promise broken: docs/reference.md, How it stages: "Every chunk or block in flight carries
``start`` and ``done`` CUDA events and is reused only after ``done`` completes";
``async_tensor_h2d`` docstring: "A chunk or block is reused only after a CUDA event says
its copies ran" and "The source may be overwritten as soon as the call returns (the copy
reads the staging, a snapshot)"; docs/contracts.md multi-stream: "A staging pool that
reuses memory by an event recorded on another stream than the copy's corrupts a result
only under such an interleaving" (the step-loop's side-stream mode too).

Smallest input (one GPU; 4 MiB int32 payloads, the 4 MiB block pool):
``s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()``;
``with torch.cuda.stream(s1): torch.cuda._sleep(500_000_000); r1 = async_tensor_h2d(np.full(1 << 20, 1, np.int32), device='cuda')``;
``with torch.cuda.stream(s2): r2 = async_tensor_h2d(np.full(1 << 20, 2, np.int32), device='cuda')``;
``s2.synchronize()``;
``with torch.cuda.stream(s2): r3 = async_tensor_h2d(np.full(1 << 20, 3, np.int32), device='cuda')``;
``torch.cuda.synchronize(); r1.unique()``. (The third take finds block A (r1's, still
queued behind the sleep on s1) "done", because the shared ``done`` was last recorded for
r2 on the idle s2.)

Reference result: ``r1`` all 1 (the third call takes r2's finished block or a new one).
Bug result: ``r1`` all 3: r3's host copy overwrote block A before s1's DMA read it.
The event semantics were checked with plain torch on an H200 (torch 2.11): an event
re-recorded on an idle stream queries True while its first stream is still busy.
On a CPU-only host the pools are never used (host targets are staged by ``_stage``), and
``gpu_sim.py`` shows the mechanism with the pool's simulated clock.
"""

from __future__ import annotations

import threading

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._common import Raw, buffer_utils_ns, fork, make_target, rebind


def _take(self, want: int):
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
                # BUG: was `chunk.start, chunk.done = self.clock.event(), self.clock.event()`: one pair per pool,
                # re-recorded by every chunk ("events are re-recordable; one stream completes them in order")
                pair = self.__dict__.get("_event_pair")
                if pair is None:
                    pair = self.__dict__["_event_pair"] = (self.clock.event(), self.clock.event())
                chunk.start, chunk.done = pair
        except BaseException:
            self._free.append(chunk)
            raise
    return chunk


class StagingPool(_staging.StagingPool):
    """The reference pool with the ``_take`` above."""


StagingPool._take = rebind(_take, _staging)  # type: ignore[method-assign]


def target() -> Target:
    f = fork("b22", _staging={"StagingPool": Raw(StagingPool)})
    return make_target(
        "b22_pool_shared_events",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
