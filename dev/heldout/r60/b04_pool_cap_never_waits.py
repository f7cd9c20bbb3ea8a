"""b04 (GPU): a pool at its cap keeps pinning new blocks behind a busy stream instead of waiting (no backpressure).

Where: ``h2d_impl/_staging.py::StagingPool._take`` (the wait branch), every pool: the small pool (1 MiB chunks, cap
64 MiB) and each large size class (cap max(1 GiB, two blocks)).

Change: the cap term dropped from the wait test ("a serving engine's scheduler must never block behind the queued
forward pass; when other work is ahead of our copies, allocate, and let ``empty_staging_cache`` give the blocks
back once the stream has drained")::

    and ((self.wait_if_started and oldest.start.query()) or grow > self.max_retained)     # reference
    and self.wait_if_started and oldest.start.query()                                     # bug

The pool still waits for its own running copy (the large pools' ``wait_if_started`` case), but never at its cap:
when the oldest block's copy sits behind other work, every call allocates another block, however many are already
queued. Values stay right and the calls return at once, faster than the reference's; but pinned memory is bounded
only by how much work the stream has queued: behind a long forward pass (or a stream blocked on an event that
never comes) each 256 MiB call pins 256 MiB more, each small-pool chunk change 1 MiB more, until
``cudaHostAlloc`` fails (a ``RuntimeError`` out of a valid call) or the host's locked memory starves everything
else. The small pool, which never waits for a started chunk, has no bound at all. At quiescence
``empty_staging_cache`` releases it all, so nothing shows once the stream has drained.

Promise broken: docs/reference.md, How it stages: "otherwise allocates up to a cap of max(1 GiB, two blocks)
(``H2D_STAGING_MAX_BYTES``), waiting beyond it"; h2d_impl/_staging.py module docstring: "allocate, never wait, unless
the pool already holds its cap (:data:`MAX_RETAINED_BYTES` or two blocks, whichever is larger); only then wait
(backpressure, bounded pinned memory)"; ``MAX_RETAINED_BYTES``: "Pinned bytes one pool may hold before a call waits
for the oldest queued copy (backpressure)"; ``SMALL_MAX_RETAINED_BYTES``: "Retained bytes at which a small pool
waits for its oldest chunk (backpressure)".

Smallest input (one CUDA device, ``t = target()``, ``f = t.async_tensor_h2d``, ``x = np.ones(1 << 26,
np.int32)``, 256 MiB): ``f([0], device="cuda:0")``; ``torch.cuda._sleep(4_000_000_000)`` (about 2 s queued); five calls
``f(x, device="cuda:0")``; ``stats()['cuda:0/268435456']['retained_bytes']`` (the target's own ``staging_stats``:
``stats = t.empty_cache.__globals__['staging_stats']``).
Reference: 1 GiB (four blocks), the fifth call waits for the first block's copy (``waits`` 1). Bug: 1.25 GiB (five
blocks, ``waits`` 0); a sixth call makes it 1.5 GiB, and so on. With the small pool: behind the same work, 256
calls of 256 KiB (``np.ones(65536, np.int32)``): reference 64 MiB retained and the 256th call waits, bug 65 MiB
and none (a simulated clock gives both pools' counts).
Nothing of it runs for a host target.
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
        elif oldest is not None and (ready := self._first_done()) is not None:
            chunk = ready
        elif (
            oldest is not None
            and grow > min(max(MIN_DEPTH_BYTES, self._depth_blocks() * self.chunk_bytes), self.max_retained)
            # BUG (r60 b04): no cap term: behind other work the pool allocates without bound, never waits
            and self.wait_if_started
            and oldest.start.query()
        ):
            # Our own copies are running (a wait of at most one chunk's DMA): wait for the oldest
            # chunk rather than pin more memory; behind other work, never wait: allocate.
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
    f = fork("b04", _staging={"StagingPool": StagingPool})
    return make_target(
        "b04_pool_cap_never_waits",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04"),
    )
