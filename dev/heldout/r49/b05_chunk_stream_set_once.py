"""b05 (GPU-only): a staging chunk's stream is recorded once, when its events are made, and goes stale when the chunk is reused on another stream.

Where: ``h2d_impl/_staging.py::StagingPool._take`` (the method that hands out a chunk or
block for copies on the current stream); a ``StagingPool`` subclass with that one method
changed.

Change (two assignments moved under the existing ``if``, "``current_stream()`` and
``stream_key()`` cost about 1.2 us a take; an engine's chunks stay on their stream")::

    chunk.stream = self.clock.current_stream()          # reference: every take
    chunk.key = <stream key>
    if chunk.start is None:
        chunk.start, chunk.done = self.clock.event(), self.clock.event()

    if chunk.start is None:                             # bug: first take only
        chunk.stream = self.clock.current_stream()
        chunk.key = <stream key>
        chunk.start, chunk.done = self.clock.event(), self.clock.event()

A chunk first used on stream A and later reused for copies on stream B records its
``start`` and ``done`` events on A. ``done`` then completes when A is idle, while B's copies
out of the chunk are still queued; the chunk is handed out again and overwritten before
they read it. Same for the large pools' blocks (``_copy_pooled``).

Why it works on a CPU: the pools are used only for CUDA targets (a host target is staged by
``_stage`` without a pool); on a CPU-only host no pool is ever made.

Promise broken: h2d_impl/_staging.py module docstring: "Every chunk or block in flight
carries two events on its stream: ``start`` (recorded before its first copy) and ``done``
(after its last). It is reused once ``done`` has completed."; h2d_impl/h2d.py,
``async_tensor_h2d`` docstring: "A chunk or block is reused only after a CUDA event says its
copies ran" and "The source may be overwritten as soon as the call returns"; README,
multi-stream: "drawn schedules of calls over three streams, some busy, ...: every result
right after synchronising".

GPU input (deterministic, through the 2 MiB blocks of a large pool):
``async_tensor_h2d(np.zeros(1 << 19, np.int32), device='cuda:0'); torch.cuda.synchronize()``
(block B taken first on the default stream, its copy done); ``s = torch.cuda.Stream()``; under
``torch.cuda.stream(s)``: ``torch.cuda._sleep(200_000_000); r = async_tensor_h2d(np.full(1 << 19,
1, np.int32), device='cuda:0')`` (B reused: its copy queued on ``s`` behind the sleep); back on
the default stream, ``time.sleep(0.01); async_tensor_h2d(np.full(1 << 19, 2, np.int32),
device='cuda:0')``; ``torch.cuda.synchronize()``. Reference: B's ``done`` was recorded on ``s``
(not done), so the last call gets a new block: ``r`` is all 1. Bug: ``done`` recorded on the
idle default stream, so B is reused and filled with 2 before ``s`` copies it: ``r`` is all 2.
The small pool's chunks are hit the same way (a chunk first opened on one stream and reopened
on another after a stream change), under interleavings that depend on event timing.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import bu_fork, fork, make_target, rebind


class _Methods:
    # the one changed method, rebound to the reference _staging module's globals below
    def _take(self, want: int) -> _Chunk:
        if self._free:
            chunk = self._free.pop()
        elif self.clock is None:
            chunk = self._alloc()
        else:
            oldest = self._inflight[0] if self._inflight else None
            grow = self.retained + self.chunk_bytes
            ready = None
            if self.retained < min(want, self.max_retained):
                # The pool holds less than this call's payload: grow now, even where a finished
                # chunk could be reused, so the next call of this size finds its whole payload's
                # chunks (an idle stream recycles two or three; behind a busy stream the rest
                # were fresh cudaHostAllocs: 8.4 ms for 64 MiB on the H200 without this rule).
                chunk = self._alloc()
            elif oldest is not None and (ready := self._first_done()) is not None:
                chunk = ready
            elif (
                oldest is not None
                and grow > min(max(MIN_DEPTH_BYTES, 2 * self.chunk_bytes), self.max_retained)
                and ((self.wait_if_started and oldest.start.query()) or grow > self.max_retained)
            ):
                # Our own copies are running (a wait of at most one chunk's DMA), or the pool is
                # full (backpressure): wait for the oldest chunk rather than pin more memory.
                self.waits += 1
                oldest.done.synchronize()
                chunk = self._inflight.popleft()
            else:
                chunk = self._alloc()
        chunk.marked = False
        if self.clock is not None:
            try:
                if chunk.start is None:  # BUG (r49 b05): stream and key set once, with the events ("~1.2 us a take;
                    # an engine's chunks stay on their stream")
                    chunk.stream = self.clock.current_stream()
                    key = self.stream_key()
                    # cudaStreamPerThread (handle 2, e.g. torch.cuda.ExternalStream(2)) is one handle
                    # for a different stream in each thread: key it by thread too, or _first_done
                    # would take two threads' streams for one (found by an outside review of the fast paths)
                    chunk.key = key if key != _PER_THREAD_STREAM else hash((key, threading.get_ident()))
                    chunk.start, chunk.done = self.clock.event(), self.clock.event()
            except BaseException:
                self._free.append(chunk)  # no copy reads it: free for the next take, still counted
                raise
        return chunk


class StagingPool(_staging.StagingPool):
    __doc__ = _staging.StagingPool.__doc__


StagingPool._take = rebind(_Methods._take, _staging)


def target() -> Target:
    f = fork("b05", _staging={"StagingPool": StagingPool})
    return make_target(
        "b05_chunk_stream_set_once",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05"),
    )
