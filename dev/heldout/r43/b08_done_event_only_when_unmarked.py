"""b08 (CPU, simulated clock): ``give_back`` records a chunk's ``done`` event only for chunks whose copy never started.

Where: _staging.py, ``StagingPool.give_back``.
Change: ``chunk.done.record(chunk.stream)`` indented into the ``if not chunk.marked:`` branch.
Why plausible: an indentation slip while editing the "nothing was issued: start = done" special case
(the two record calls sit on adjacent lines); every call still issues its copy, and single calls read right.
Promise broken: _staging module docstring: "Every chunk or block in flight carries two events ... It is
reused once ``done`` has completed"; async_tensor_h2d docstring: "A chunk or block is reused only after a
CUDA event says its copies ran" (on CUDA a never-recorded event reports complete, so the next call
overwrites a block whose DMA is still queued: the snapshot promise breaks).
Smallest input (the pool's own API with a simulated clock, as its docstring describes):
    clock = FakeClock(); pool = StagingPool(torch.device("cpu"), 1024, pin=False, small=False, clock=clock)
    a = pool.take(); pool.mark_start(a); pool.give_back(a)   # a's copy is queued on a busy stream
    b = pool.take()                                           # the stream has not run
Reference: ``b`` is a new block (a is still read). Bug: ``b is a`` (the queued copy's block handed out again).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import fork_target_full
from ._stg import staging_fork

TAG = "b08"


def give_back(self, chunk):
    if self.clock is not None:
        if not chunk.marked:
            chunk.start.record(chunk.stream)
            chunk.done.record(chunk.stream)  # BUG: was one level out (recorded for every chunk)
        self._inflight.append(chunk)
    else:
        self._free.append(chunk)


def _fork():
    return staging_fork(TAG, give_back=give_back)


def target() -> Target:
    return fork_target_full("b08_done_event_only_when_unmarked", _fork())
