"""b25 (GPU-only, _staging.py ``StagingPool.trim``): the trim was rewritten as a filter of the in-flight deque followed by a count of the finished chunks, counted on the *filtered* deque: it releases the chunks but reports 0 bytes and never lowers ``retained``, which then grows by a phantom amount at every trim until the pool waits behind queued work.

What changed: the loop that built ``kept`` and counted ``dropped`` in one pass became
``self._inflight = deque(c for c in self._inflight if not c.done.query())`` followed by
``dropped += sum(1 for c in self._inflight if c.done.query())``.

Why an engineer would write it: a tidy-up of the loop into a comprehension; the second
line was meant to count what the first removed and reads the attribute that was just
reassigned. The released chunks do go back to torch's caching host allocator, so memory
readings after ``_host_emptyCache()`` look right.

Promise broken: ``empty_staging_cache`` docstring: "Release every staging chunk whose
copies have completed, in every pool; returns the bytes released"; ``staging_stats``
docstring: "retained bytes, chunks in flight and free"; docs/reference.md: "A pool ...
allocates up to a cap of max(1 GiB, two blocks) (``H2D_STAGING_MAX_BYTES``), waiting
beyond it" and "a call waits for the stream only for its own running copies or when a
pool's cap of staging is already queued behind other work": with ``retained`` inflated by
every trim, the pool believes it is at its cap and waits on a busy stream while holding
nothing (non-blocking, step-loop).

Smallest input (one GPU): ``async_tensor_h2d(np.ones(1 << 20, np.int32),
device='cuda'); torch.cuda.synchronize(); released = empty_staging_cache();
staging_stats()['cuda:0/4194304']['retained_bytes']``.

Reference result: ``released == 4194304``, retained ``0``.
Bug result: ``released == 0``, retained ``4194304`` (the block is gone). Each further
call + synchronize + trim adds a block's worth of phantom ``retained``; once it passes
the cap (1 GiB, or ``H2D_STAGING_MAX_BYTES``: with ``H2D_STAGING_MAX_BYTES=16777216`` set
before import, after four cycles), the second of two 4 MiB calls queued behind
``torch.cuda._sleep`` waits on the first's ``done`` event: the host blocks until the
sleep ends (the reference allocates and returns at once). (``empty_staging_cache`` and
``staging_stats`` here are the target's, i.e. the fork's: ``target().empty_cache``.)
On a CPU-only host no pool exists: ``empty_staging_cache()`` returns 0 either way.
``gpu_sim.py`` runs the trim with the pool's simulated clock.
"""

from __future__ import annotations

import collections

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._common import Raw, buffer_utils_ns, fork, make_target, rebind


def trim(self) -> int:
    """Drop every chunk whose copies have completed (caller holds :attr:`lock`); returns bytes dropped."""
    if self.open is not None:
        chunk, self.open = self.open, None
        self.give_back(chunk)
    dropped = len(self._free)
    self._free.clear()
    self._inflight = collections.deque(c for c in self._inflight if not c.done.query())
    dropped += sum(1 for c in self._inflight if c.done.query())  # BUG: counts the kept deque (was one pass counting the dropped)
    self.retained -= dropped * self.chunk_bytes
    return dropped * self.chunk_bytes


class StagingPool(_staging.StagingPool):
    """The reference pool with the ``trim`` above."""


StagingPool.trim = rebind(trim, _staging)  # type: ignore[method-assign]


def target() -> Target:
    f = fork("b25", _staging={"StagingPool": Raw(StagingPool)})
    return make_target(
        "b25_trim_counts_after_filter",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
