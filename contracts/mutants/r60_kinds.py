"""Mutants for the kinds held-out round r60 found missing: a staging pool whose search for a finished buffer stops at
the oldest one still queued, so that one busy stream keeps another's finished buffers from ever being reused; and a
large-payload pool that records a block's start when it takes it, before the host copy, so that another thread's
kernel queued on the same stream during that copy lies between the start and the DMA.

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

from h2d_contracts.h2d_impl import _staging as _P

from ..targets import Target
from .base import mutant
from .gpu import pooled_target


class _OldestOrNothing(_P.StagingPool):
    """``_first_done`` as "the queue is in order": only the oldest in-flight buffer is asked, and a queued oldest
    means none is free, though buffers copied on another stream behind it have finished."""

    def _first_done(self) -> _P._Chunk | None:
        if self._inflight and self._inflight[0].done.query():
            return self._inflight.popleft()
        return None


@mutant(killed_by=("non-blocking",), needs="cuda", by=("prop_idle_stream_never_waits",))
def pool_reuse_asks_only_the_oldest() -> Target:
    """the staging pools reuse only their oldest in-flight buffer: with one stream busy, calls on another stream pin a
    new buffer each until the pool's cap, then wait for the busy stream's work."""
    return pooled_target("pool_reuse_asks_only_the_oldest", _OldestOrNothing)


class StartAtTake(_P.StagingPool):
    """A large-payload pool (one that waits for its own running copy) records a block's start event in :meth:`take`,
    before the caller's host copy, instead of in :meth:`mark_start` right before the DMA ("the start/done pair then
    brackets the block's whole use"); the small pool is unchanged."""

    def take(self, want: int = 0) -> _P._Chunk:
        chunk = super().take(want)
        if self.wait_if_started:
            super().mark_start(chunk)
        return chunk

    def mark_start(self, chunk: _P._Chunk) -> None:
        if not chunk.marked:  # a large pool's block was marked at the take
            super().mark_start(chunk)


@mutant(killed_by=("non-blocking",), needs="cuda", by=("prop_other_thread_work_never_waited",))
def pool_start_marked_at_take() -> Target:
    """the large-payload pools record a block's start when they take it, before the host copy: a kernel another
    thread queues on the same stream during that copy completes the start, and a call at the pool's depth waits for
    that whole kernel, taking it for the end of its own copy."""
    return pooled_target("pool_start_marked_at_take", StartAtTake)
