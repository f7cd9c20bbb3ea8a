"""b07 (CPU): ``StagingPool.trim`` takes the pool's lock itself; ``empty_staging_cache`` already holds it: a deadlock.

Where: _staging.py, ``StagingPool.trim``.
Change: the body of ``trim`` wrapped in ``with self.lock:`` ("trim touches the free and in-flight lists:
make it safe to call on its own").
Why plausible: a defensive lock in a method that mutates shared lists; ``threading.Lock`` is not
re-entrant, and the docstring's "(caller holds lock)" is easy to miss.
Promise broken: empty_staging_cache docstring: "Release every staging chunk whose copies have completed,
in every pool; returns the bytes released" (it never returns: a hang), and the target's ``empty_cache``
(docs/targets.md: "releases the target's own pinned or device caches").
Smallest input:
    pool_for(torch.device("cpu"), 1 << 16, False, small=True)    # any pool exists (every CUDA call makes one)
    empty_staging_cache()                                          # target().empty_cache()
Reference: returns 0 at once. Bug: blocks forever (the repro gives up after 3 s).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import fork_target_full
from ._stg import staging_fork

TAG = "b07"


def trim(self):
    with self.lock:  # BUG: the caller (empty_staging_cache) already holds self.lock
        if self.open is not None:
            chunk, self.open = self.open, None
            self.give_back(chunk)
        kept = collections.deque()
        dropped = len(self._free)
        self._free.clear()
        for chunk in self._inflight:
            if chunk.done.query():
                dropped += 1
            else:
                kept.append(chunk)
        self._inflight = kept
        self.retained -= dropped * self.chunk_bytes
        return dropped * self.chunk_bytes


def _fork():
    return staging_fork(TAG, trim=trim)


def target() -> Target:
    return fork_target_full("b07_trim_takes_pool_lock", _fork())
