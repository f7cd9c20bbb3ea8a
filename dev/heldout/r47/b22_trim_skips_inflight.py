"""b22 trim_skips_inflight (GPU only) -- ``_staging.StagingPool.trim`` (``empty_staging_cache``).

What changed: ``trim`` drops only the free list and no longer scans the in-flight queue for
chunks whose ``done`` event has completed ("in flight means in use")::

    for chunk in self._inflight:                 # reference: drop the finished ones
        if chunk.done.query(): dropped += 1
        else: kept.append(chunk)
    self._inflight = kept

    # bug: the loop and the reassignment are gone; only _free (and the open chunk,
    # given back into _inflight) are handled

But every chunk and block goes back through ``give_back`` into ``_inflight``; ``_free``
holds only chunks that never carried a copy. So on a GPU ``empty_staging_cache()``
releases (almost) nothing.

Why GPU only: on a CPU-only host public calls never create a staging pool (host targets
are served by ``_stage``), so ``empty_cache()`` releases 0 bytes on bug and control alike
(repro.py).

Promise broken (reference.md "``empty_staging_cache()`` releases idle blocks (the
reference's ``Target.empty_cache``, so the hygiene contract does not take a bounded cache
for a leak)"; ``_staging``: "drops every chunk and block whose copies have completed";
README ``hygiene``: "100,000 mixed calls retain no pinned or device memory at quiescence").

Smallest GPU input: ``async_tensor_h2d(np.zeros(1 << 20, np.float32), device="cuda:0")``;
``torch.cuda.synchronize()``; ``empty_cache()``: reference returns 4194304 (the 4 MiB block)
and the pinned bytes go back; bug returns 0 and ``torch.cuda.host_memory_stats()`` still
counts the block after ``torch._C._host_emptyCache()``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import bu_fork, fork, make_target, rebind


def trim(self):
    """Drop every chunk whose copies have completed (caller holds :attr:`lock`); returns bytes dropped."""
    if self.open is not None:
        chunk, self.open = self.open, None
        self.give_back(chunk)
    dropped = len(self._free)
    self._free.clear()
    self.retained -= dropped * self.chunk_bytes
    return dropped * self.chunk_bytes


class StagingPool(_staging.StagingPool):
    __doc__ = _staging.StagingPool.__doc__


StagingPool.trim = rebind(trim, _staging)


def target() -> Target:
    f = fork("b22", _staging={"StagingPool": StagingPool})
    return make_target(
        "b22_trim_skips_inflight",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b22"),
    )
