"""b24 (GPU-only): the in-flight scan tests the event's bound method ``chunk.done.query`` (always truthy) instead of calling it.

Where: ``h2d_impl/_staging.py::StagingPool._first_done`` (CUDA staging pools only).

Change (one line)::

    if chunk.done.query():   # reference: has the chunk's last copy run?
    if chunk.done.query:     # bug: missing parentheses; a bound method is always true

Every take that reaches the scan (the pool already holds the call's payload and has no free
chunk) gets the *oldest in-flight* chunk back at once, whether or not the copies reading it
have run. The new call's host copy overwrites a chunk or block that a queued non-blocking
DMA has yet to read: the earlier result receives the later call's data.

Promise broken: docs/reference.md, "How it stages": "Every chunk or block in flight carries
`start` and `done` CUDA events and is reused only after `done` completes"; h2d_impl/h2d.py
``async_tensor_h2d`` docstring: "A chunk or block is reused only after a CUDA event says its
copies ran" and "The source may be overwritten as soon as the call returns (the copy reads
the staging, a snapshot)"; docs/contracts.md, snapshot: "two calls queued back to back, the
second with other values, both land" (``prop_back_to_back``: "1 or 8 MiB arrays").

On a CPU-only host every public call behaves as the control's (no pool is ever made).

GPU input: ``torch.cuda._sleep(2 * 10**8); a = async_tensor_h2d(np.full(1 << 19, 1, np.int32),
device='cuda'); b = async_tensor_h2d(np.full(1 << 19, 2, np.int32), device='cuda');
torch.cuda.synchronize(); int(a.min()), int(a.max())`` (2 MiB each: the large pool).
Reference: ``(1, 1)``. Bug: ``(2, 2)`` (b's host copy went into a's block, still queued).
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import bu_fork, fork, make_target, rebind

def _first_done(self) -> _Chunk | None:
    """Remove and return the oldest of the first :data:`SCAN` in-flight chunks whose copies ran, if any.

    Not only the oldest: with several streams the oldest may sit behind other work on
    one stream while a later one, copied on another stream, is already free (found by
    an outside review of the pool).
    A chunk on a stream whose earlier chunk has not finished is skipped unqueried: the
    events of one stream complete in the order they were recorded. So back-to-back calls
    on one stream query one event per take, not :data:`SCAN` (each ``cudaEventQuery``
    is about 1 us; a 1 MiB call's DMA about 20 us).
    """
    blocked: set[int] = set()
    for i, chunk in enumerate(self._inflight):
        if i == SCAN:
            return None
        if chunk.key in blocked:
            continue
        if chunk.done.query:  # BUG (r48 b24): the bound method, not its result (always true)
            del self._inflight[i]
            return chunk
        blocked.add(chunk.key)
    return None


class StagingPool(_staging.StagingPool):
    __doc__ = _staging.StagingPool.__doc__
    _first_done = rebind(_first_done, _staging)


def target() -> Target:
    f = fork("b24", _staging={"StagingPool": StagingPool})
    return make_target(
        "b24_done_query_uncalled",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b24"),
    )
