"""b10 (CPU): ``give_back`` queues every chunk as in flight, also in a pool without a clock (host target).

Where: _staging.py, ``StagingPool.give_back``.
Change: the ``else: self._free.append(chunk)`` branch folded away: ``self._inflight.append(chunk)`` for
every chunk, the events recorded only ``if self.clock is not None``.
Why plausible: "one code path: ``_first_done`` finds finished chunks anyway"; on CUDA (the only place
the developer measured) nothing changes.
Promise broken: _staging module docstring: "for a host target ... there are no streams and every chunk is
reusable at once"; empty_staging_cache docstring: "Release every staging chunk whose copies have
completed, in every pool; returns the bytes released" (it raises AttributeError: a clock-less chunk has
no ``done`` event), and the pool allocates on every take (its memory grows without bound).
Smallest input:
    pool = pool_for(torch.device("cpu"), 1024, False, small=False)
    a = pool.take(); pool.give_back(a); b = pool.take(); pool.give_back(b)
    empty_staging_cache()                                          # target().empty_cache()
Reference: ``b is a``, one allocation, empty_staging_cache() returns 1024. Bug: ``b`` is a new chunk, two
allocations, empty_staging_cache() raises AttributeError ('NoneType' object has no attribute 'query').
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import fork_target_full
from ._stg import staging_fork

TAG = "b10"


def give_back(self, chunk):
    if self.clock is not None:
        if not chunk.marked:
            chunk.start.record(chunk.stream)
        chunk.done.record(chunk.stream)
    self._inflight.append(chunk)  # BUG: was `else: self._free.append(chunk)` for a pool without a clock


def _fork():
    return staging_fork(TAG, give_back=give_back)


def target() -> Target:
    return fork_target_full("b10_give_back_always_queues", _fork())
