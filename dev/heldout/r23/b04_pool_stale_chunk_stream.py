"""b04: a staging block remembers the stream of its first use; on reuse its events go on that stale stream.

Engine pattern: the forward pass (and its input copies) runs on a side stream of the
model runner (``with torch.cuda.stream(s)``) after warm-up calls made on the default
stream. Fault (in the staging pool's ``take``): a chunk's stream, its stream key and its
start/done events are set up together, once, when the chunk is first used
(``if chunk.start is None``). A chunk reused on another stream keeps recording its
``done`` event on its first stream, where it completes at once, so the pool hands the
chunk out again, and the next call's host copy overwrites it, while the previous copy
is still queued behind the busy stream. The previous result gets the next call's data.
Invisible on the host: host targets never stage (and a host pool has no streams).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import threading

from h2d_contracts.h2d_impl import _staging

from ._common import PoolRegistry, make_h2d, make_target, make_to_device

if TYPE_CHECKING:
    from h2d_contracts.contracts import Target


class StalePool(_staging.StagingPool):
    """The reference pool with one edit in ``_take``."""

    def _take(self, want: int) -> _staging._Chunk:  # a copy of StagingPool._take
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
            elif oldest is not None and grow > min(max(_staging.MIN_DEPTH_BYTES, 2 * self.chunk_bytes), self.max_retained) and ((self.wait_if_started and oldest.start.query()) or grow > self.max_retained):
                self.waits += 1
                oldest.done.synchronize()
                chunk = self._inflight.popleft()
            else:
                chunk = self._alloc()
        chunk.marked = False
        if self.clock is not None:
            try:
                if chunk.start is None:
                    # FAULT: stream, key and events set up once, at the chunk's first use; the
                    # reference sets chunk.stream and chunk.key on every take
                    chunk.stream = self.clock.current_stream()
                    key = self.stream_key()
                    chunk.key = key if key != _staging._PER_THREAD_STREAM else hash((key, threading.get_ident()))
                    chunk.start, chunk.done = self.clock.event(), self.clock.event()
            except BaseException:
                self._free.append(chunk)
                raise
        return chunk


_POOLS = PoolRegistry(StalePool)
async_tensor_h2d = make_h2d(make_to_device(pool_for=_POOLS.pool_for))


def target() -> Target:
    return make_target("r23-b04-pool-stale-chunk-stream", fn=async_tensor_h2d, empty_cache=_POOLS.empty_cache,
                       notes="staging pool binds a chunk's stream at its first use; reuse on another stream records done on the stale one")
