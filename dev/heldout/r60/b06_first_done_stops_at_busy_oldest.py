"""b06 (GPU): the pool's scan for a finished chunk gives up at the first one still in flight.

Where: ``h2d_impl/_staging.py::StagingPool._first_done`` (called by every take that finds no free chunk: the small
pool's chunk changes and every large-payload call).

Change: the per-stream bookkeeping of the scan dropped ("the in-flight queue is in recording order and events
complete in the order they were recorded, so once a chunk is not done none after it is: stop there; the
``blocked`` set and its skips were dead weight")::

    for i, chunk in enumerate(self._inflight):                            # reference
        if i == SCAN:
            return None
        if chunk.key in blocked:
            continue
        if chunk.done.query():
            del self._inflight[i]
            return chunk
        blocked.add(chunk.key)
    return None

    for i, chunk in enumerate(self._inflight):                            # bug
        if i == SCAN:
            return None
        if chunk.done.query():
            del self._inflight[i]
            return chunk
        return None  # later chunks were recorded later: none of them is done either

Events complete in recording order only on one stream. With several streams (a side stream, a stream per thread)
the oldest chunk can sit behind a long kernel on its stream while every later chunk, copied on an idle stream, is
long done. The scan now sees only the oldest: no finished chunk is ever reused while it waits. The pool allocates
instead (a fresh ``cudaHostAlloc`` per call, about 1 ms plus 0.25 ms per MiB), its pinned memory grows call after
call up to the cap (1 GiB per size class, 64 MiB for small payloads) while other streams' chunks lie finished, and
at the cap the next call waits for that oldest chunk, i.e. for the other stream's kernel. Values stay right.

Promise broken: h2d_impl/_staging.py ``StagingPool._first_done``: "Remove and return the oldest of the first
:data:`SCAN` in-flight chunks whose copies ran, if any. Not only the oldest: with several streams the oldest may sit
behind other work on one stream while a later one, copied on another stream, is already free"; docs/reference.md,
How it stages: "A pool holding less than the payload allocates; else it reuses a finished block; else it allocates
while it holds fewer than two blocks ..."; h2d_impl/_staging.py module docstring: "So a call waits for the stream
only for its own running copies or when a pool's cap of staging is already queued behind other work".

Smallest input (one CUDA device, ``t = target()``, ``f = t.async_tensor_h2d``, ``stats =
t.empty_cache.__globals__['staging_stats']``, ``x = np.zeros(1 << 20, np.int32)``, 4 MiB, ``s1, s2 =
torch.cuda.Stream(), torch.cuda.Stream()``): ``f([0], device="cuda:0")``; ``with torch.cuda.stream(s1):
torch.cuda._sleep(2_000_000_000); f(x, device="cuda:0")``; then four times ``with torch.cuda.stream(s2): f(x,
device="cuda:0"); s2.synchronize()``; ``stats()['cuda:0/4194304']``.
Reference: 8 MiB retained, 2 allocations (the s2 calls reuse their own finished block). Bug: 20 MiB, 5 allocations
(one block per call); kept up for the second of spin, the s2 calls pin up to 1 GiB, then stall until the spin
ends. A simulated clock gives both counts. Nothing of it runs for a host target.
"""

from __future__ import annotations

from typing import Any

from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

# ruff: noqa: F821  (the reference module's globals: SCAN)


def _first_done(self: Any) -> Any:
    """Remove and return the oldest in-flight chunk if its copies ran (none after it can be done before it)."""
    for i, chunk in enumerate(self._inflight):
        if i == SCAN:
            return None
        if chunk.done.query():
            del self._inflight[i]
            return chunk
        return None  # BUG (r60 b06): stops at the first chunk in flight, whatever stream the later ones are on
    return None


class StagingPool(_staging.StagingPool):
    __doc__ = _staging.StagingPool.__doc__


StagingPool._first_done = rebind(_first_done, _staging)  # type: ignore[method-assign]


def target() -> Target:
    f = fork("b06", _staging={"StagingPool": StagingPool})
    return make_target(
        "b06_first_done_stops_at_busy_oldest",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06"),
    )
