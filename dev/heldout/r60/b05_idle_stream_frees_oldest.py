"""b05 (GPU): a take on an idle current stream hands out the pool's oldest chunk without asking its event.

Where: ``h2d_impl/_staging.py::StagingPool._take`` (every pool: the small pool when its open chunk is closed, full or
on a stream change, and each large size class on every call).

Change: a shortcut before the event scan ("``_first_done`` queries up to eight events, about 1 us each; if the
current stream has nothing queued, every copy we issued has run, so the oldest chunk is free: one query")::

    elif oldest is not None and (ready := self._first_done()) is not None:               # reference
        chunk = ready

    elif oldest is not None and self.clock.current_stream().query():                     # bug
        chunk = self._inflight.popleft()  # the stream is idle: every copy we queued has run
    elif oldest is not None and (ready := self._first_done()) is not None:
        chunk = ready

True for an engine with one stream. But a pool serves every stream of its device, and ``Stream.query()`` speaks for
the current stream only: the oldest chunk may hold copies queued on another stream (a side stream behind a long
kernel, another thread's stream) that have not run. The call on the idle stream takes it anyway and its host copy
overwrites the bytes those queued DMAs will read: the earlier call's result gets this call's values. Where the
oldest chunk is on the current stream the shortcut is right, so a one-stream engine never sees it.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d`` docstring: "A chunk or block is reused only after a CUDA event
says its copies ran"; docs/reference.md, How it stages: "Every chunk or block in flight carries ``start`` and
``done`` CUDA events and is reused only after ``done`` completes"; docs/contracts.md, multi-stream: "After
synchronising, every result must equal its source at its call".

Smallest input (one CUDA device, ``f = target().async_tensor_h2d``, ``s1, s2 = torch.cuda.Stream(),
torch.cuda.Stream()``): ``with torch.cuda.stream(s1): torch.cuda._sleep(1_000_000_000); a = f([1, 2, 3],
device="cuda:0")`` (the small pool's first chunk, its copy queued behind about half a second of spin); ``with
torch.cuda.stream(s2): b = f([4, 5, 6], device="cuda:0")`` (closes that chunk: s2 is idle, so the bug reopens it at
offset 0); ``torch.cuda.synchronize()``; ``a``.
Reference: ``a == [1, 2, 3]`` (the chunk is not done: a second chunk is pinned). Bug: ``a == [4, 5, 6]``; ``b`` is
right. Large payloads alike: ``np.full(1 << 20, 1, np.int32)`` (4 MiB) on s1 behind the spin, then
``np.full(1 << 20, 2, np.int32)`` on s2: the s1 result holds 2s (reference: 1s, a second block pinned). A simulated
clock gives both. Nothing of it runs for a host target.
"""

from __future__ import annotations

from typing import Any

from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

# ruff: noqa: F821  (the reference module's globals: MIN_DEPTH_BYTES, _PER_THREAD_STREAM, _thread_token)


def _take(self: Any, want: int) -> Any:
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
        elif oldest is not None and self.clock.current_stream().query():  # BUG (r60 b05): the current stream only
            # the stream has nothing queued: every copy we issued has run, the oldest chunk is free (one query
            # instead of _first_done's scan)
            chunk = self._inflight.popleft()
        elif oldest is not None and (ready := self._first_done()) is not None:
            chunk = ready
        elif (
            oldest is not None
            and grow > min(max(MIN_DEPTH_BYTES, self._depth_blocks() * self.chunk_bytes), self.max_retained)
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
            chunk.stream = self.clock.current_stream()
            key = self.stream_key()
            # cudaStreamPerThread (handle 2, e.g. torch.cuda.ExternalStream(2)) is one handle
            # for a different stream in each thread: key it by thread too, or _first_done
            # would take two threads' streams for one (found by an outside review of the fast paths)
            chunk.owner = None if key != _PER_THREAD_STREAM else _thread_token()
            chunk.key = key if chunk.owner is None else hash((key, chunk.owner))
            if chunk.start is None:
                chunk.start, chunk.done = self.clock.event(), self.clock.event()
        except BaseException:
            self._free.append(chunk)  # no copy reads it: free for the next take, still counted
            raise
    return chunk


class StagingPool(_staging.StagingPool):
    __doc__ = _staging.StagingPool.__doc__


StagingPool._take = rebind(_take, _staging)  # type: ignore[method-assign]


def target() -> Target:
    f = fork("b05", _staging={"StagingPool": StagingPool})
    return make_target(
        "b05_idle_stream_frees_oldest",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05"),
    )
