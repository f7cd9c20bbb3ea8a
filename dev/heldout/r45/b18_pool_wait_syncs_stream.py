"""b18 (GPU-only) - a pool that must wait for its oldest block synchronises that block's *stream*, not its ``done`` event.

Where: ``_staging.StagingPool._take`` (the wait branch: our own copies running, or the pool at its
cap of pinned memory). Pools are used only for CUDA targets: on a CPU host no public call
reaches a pool (host targets are staged by ``_stage``), so every CPU call is the reference's.

Change (old -> new)::

    self.waits += 1
    oldest.done.synchronize()
    chunk = self._inflight.popleft()
    ->
    self.waits += 1
    oldest.stream.synchronize()  # BUG: "the chunk's stream is where its copy ran: same thing"
    chunk = self._inflight.popleft()

Why an engineer writes it: events are reused per chunk (``start``/``done`` are re-recorded on
every use), and a reviewer worried that another thread could re-record ``done`` between the
check and the wait; synchronising the stream the chunk's copy ran on "is equivalent and immune
to re-recording", since events of one stream complete in order. It is not equivalent: the stream
also holds everything queued *after* the chunk's copy (the forward pass, the next calls' DMAs),
and ``Stream.synchronize`` waits for all of it.

Promise broken (one CUDA device): ``async_tensor_h2d``'s docstring / docs/reference.md "How it
stages" ("the host waits only for its own copies already running on the DMA engine, or when a
size class already holds its cap (1 GiB or two blocks) queued behind other work" - for the
oldest block's copy, which is what "reused only after ``done`` completes" means), docs/contracts.md
"non-blocking" / "step-loop" ("the calls never waiting for the queued forward pass").

What a CUDA run shows (``cuda:0``, default ``H2D_STAGING_MAX_BYTES``; 512 MiB payloads: one block
of 512 MiB each, cap 1 GiB): ``torch.cuda._sleep`` 1 s (K1); ``A = async_tensor_h2d(x_512MiB,
device="cuda:0")``; ``_sleep`` 3 s (K2); ``B = async_tensor_h2d(y_512MiB, ...)``; then ``C = ...``
a third 512 MiB call: the pool holds 1 GiB in flight, so ``C`` waits for block A. Reference: ``C``
returns about 1.0 s after K1 was queued (K1 + A's DMA). Bug: about 4.0 s (K1 + A + K2 + B's DMA:
the whole stream). Results are right in both.

Smallest input: CUDA-only (see above). On the CPU, ``async_tensor_h2d(np.arange(300000,
dtype=np.int32), device="cpu")`` is the same tensor for both.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging as _ref_staging
from plumbing import fork, fork_target_full, rebind


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
            oldest.stream.synchronize()  # BUG: was oldest.done.synchronize()
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
            chunk.key = key if key != _PER_THREAD_STREAM else hash((key, threading.get_ident()))
            if chunk.start is None:
                chunk.start, chunk.done = self.clock.event(), self.clock.event()
        except BaseException:
            self._free.append(chunk)  # no copy reads it: free for the next take, still counted
            raise
    return chunk


def target() -> Target:
    # StagingPool is a class (not copied by fork): a subclass with _take rebound, bound into the fork's _staging
    pool_cls = type(
        "StagingPool", (_ref_staging.StagingPool,), {"__module__": __name__, "_take": rebind(_take, _ref_staging)}
    )
    return fork_target_full("b18_pool_wait_syncs_stream", fork("b18", _staging={"StagingPool": pool_cls}))
