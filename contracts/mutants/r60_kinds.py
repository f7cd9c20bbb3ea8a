"""Mutants for the kinds held-out round r60 found missing: a staging pool whose search for a finished buffer stops at
the oldest one still queued, so that one busy stream keeps another's finished buffers from ever being reused.

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
