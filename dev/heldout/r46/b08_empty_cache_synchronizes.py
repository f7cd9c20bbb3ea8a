"""b08 (CPU): ``empty_staging_cache`` synchronises the device first, unguarded.

Where: ``_staging.empty_staging_cache`` (the target's ``empty_cache``). The reference
trims every pool under its lock and returns the bytes released; chunks still read by a
queued copy stay. The bug starts with ``torch.cuda.synchronize()`` ("wait for every copy,
so that every chunk can be released"), which on a build or host without CUDA raises.

Why realistic: written and tested on a GPU box, where it only makes the call slower; the
CPU-platform workers of the same engine call the same cleanup hook (the hygiene contract
and the step loop call ``empty_cache`` on the host as well).

Smallest input: ``empty_cache()`` on a CPU-only host. Reference: ``0``. Bug:
``AssertionError: Torch not compiled with CUDA enabled`` (on a CUDA host: the call blocks
until all queued work on the device has run).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def empty_staging_cache():
    """Release every staging chunk whose copies have completed, in every pool; returns the bytes released."""
    torch.cuda.synchronize()  # BUG (added): wait for every queued copy so that every chunk can go
    total = 0
    for pool in list(_POOLS.values()):
        with pool.lock:
            total += pool.trim()
    return total


def target() -> Target:
    f = fork("b08", _staging={"empty_staging_cache": empty_staging_cache})
    return make_target(
        "b08_empty_cache_synchronizes",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b08"),
    )
