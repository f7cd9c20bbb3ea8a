"""b25 (GPU-only, _staging.py ``StagingPool.trim``): ``empty_staging_cache()`` no longer closes the small pool's open chunk.

What changed: the first lines of ``trim`` (``if self.open is not None: chunk, self.open =
self.open, None; self.give_back(chunk)``) were removed; only free and finished in-flight
chunks are dropped.

Why an engineer would write it: "the open chunk is still being sub-allocated; closing it on
every cache trim wastes its free space and costs an event". But the open chunk is never in
``_free`` or ``_inflight`` while it is open, so a trim can never release it: after the stream
has drained, a small-payload pool keeps its 1 MiB pinned chunk (per device and stream key)
however often the cache is emptied, and ``staging_stats()`` keeps reporting it.

Observable (CUDA only: pools exist for CUDA targets only): ``async_tensor_h2d([1],
device="cuda"); torch.cuda.synchronize(); empty_staging_cache(); torch.cuda.synchronize();
empty_staging_cache()`` (the second trim drops a chunk whose ``done`` event, recorded by the
first, had not yet been seen complete).
Reference: the two calls release ``1048576`` bytes together and
``staging_stats()["cuda:0/1048576/small"]["retained_bytes"]`` is ``0``; after
``torch._C._host_emptyCache()`` the pinned bytes are back at their level before the call.
Bug: both return ``0``, the pool still retains ``1048576`` bytes however often the cache is
emptied, and that pinned block is never handed back.

Promise broken: ``empty_staging_cache()``: "Release every staging chunk whose copies have
completed, in every pool" (docstring); docs/reference.md "``empty_staging_cache()`` releases idle
blocks (the reference's ``Target.empty_cache``, so the hygiene contract does not take a
bounded cache for a leak)"; contracts.md hygiene.

Mechanism check on a CPU-only host: ``r38/gpu_sim.py``.
"""

from __future__ import annotations

import collections

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._common import Fork, buffer_utils_ns, fork, make_target, rebind


def trim(self) -> int:
    """Drop every chunk whose copies have completed (caller holds :attr:`lock`); returns bytes dropped."""
    # BUG: the open chunk of a small pool is no longer closed (given back) here, so it is never dropped
    kept: collections.deque = collections.deque()
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


class BuggyStagingPool(_staging.StagingPool):
    trim = rebind(trim, _staging)


def _fork() -> Fork:
    return fork("b25", _staging={"StagingPool": BuggyStagingPool})


def target() -> Target:
    f = _fork()
    return make_target(
        "b25_trim_keeps_open_chunk",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
