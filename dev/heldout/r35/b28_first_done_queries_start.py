"""b28 (GPU only): the staging pool's scan for a reusable chunk queries each chunk's ``start`` event, not ``done``.

The change: in ``StagingPool._first_done``, ``if chunk.done.query():`` became
``if chunk.start.query():`` (a ``StagingPool`` subclass here, which this target's private
``pool_for`` builds).

Why an engineer writes it: the wait branch of ``_take`` already decides on
``oldest.start.query()`` ("our own copies are running"); unifying the two tests on the
start event ("the stream has reached our copies, so they are next") looks harmless and
lets a chunk be recycled a DMA earlier.

What breaks (CUDA only: for a host target the pools have no clock and ``_first_done`` is
never called): a chunk or block whose copies have *started* is handed out again and
overwritten on the host while its DMA still reads it. "reused only after ``done``
completes" (docs/reference.md, "How it stages"); snapshot and multi-stream contracts.
Scenario: idle stream, two back-to-back 8 MiB calls of different int32 arrays (built
beforehand, fresh pool): the second call takes the first call's block (its ``start``
completed as soon as the stream reached the DMA) and its host copy overwrites it mid-DMA:
after ``torch.cuda.synchronize()`` the first result holds the second call's values in
part. Seen on one H200 (torch 2.11, the same one-word change applied to the reference in a
scratch process): 20 of 20 first results corrupted at 8 and 64 MiB, 0 of 20 for the
reference (at 1 MiB the DMA outran the second host copy). repro.py shows it on the host
with a simulated stream. Small calls too: once the open 1 MiB chunk fills
up, the chunk just closed (started at its first slice) is reopened while its last slices'
DMAs are queued.
"""

from __future__ import annotations

from h2d_contracts.h2d_impl import _staging as _ref_staging

from ._common import fork, fork_target, rebind


def _first_done(self):
    blocked = set()
    for i, chunk in enumerate(self._inflight):
        if i == SCAN:
            return None
        if chunk.key in blocked:
            continue
        if chunk.start.query():  # BUG: was chunk.done.query(): started is not finished
            del self._inflight[i]
            return chunk
        blocked.add(chunk.key)
    return None


class StagingPool(_ref_staging.StagingPool):
    _first_done = rebind(_first_done, _ref_staging)


def target():
    return fork_target("b28-first-done-queries-start", fork("b28", _staging={"StagingPool": StagingPool}))
