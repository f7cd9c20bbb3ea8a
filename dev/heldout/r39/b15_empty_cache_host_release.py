"""b15 (CPU-visible, _staging.py ``empty_staging_cache``): after trimming the pools it also calls ``torch._C._host_emptyCache()``, which a CPU-only torch build does not have: ``empty_staging_cache()`` raises AttributeError on every CPU host.

What changed: ``empty_staging_cache`` gained the line ``torch._C._host_emptyCache()``
after the trim loop, before ``return total``.

Why an engineer would write it: the function's docstring says the released chunks go
back to torch's caching host allocator and that ``torch._C._host_emptyCache()`` "hands
them back to the OS"; callers that want the memory back (the hygiene check does exactly
these two calls in a row) would rather have one call, as ``torch.cuda.empty_cache()``
is. Tested on the GPU machine, where the private binding exists; a CPU-only build of
torch 2.13 has no ``torch._C._host_emptyCache``.

Promise broken: ``empty_staging_cache`` docstring: "Release every staging chunk whose
copies have completed, in every pool; returns the bytes released"; docs/reference.md:
"``empty_staging_cache()`` releases idle blocks (the reference's ``Target.empty_cache``,
so the hygiene contract does not take a bounded cache for a leak)"; docs/targets.md:
"empty_cache: releases the target's own pinned or device caches"; docs/contracts.md
step-loop: "at quiescence ... (weak references, after the target's ``empty_cache`` and a
garbage collection)" (on the host too); README: the CPU-only install is a supported
machine.

Smallest input: ``empty_staging_cache()`` on a CPU-only torch (the target's
``empty_cache()``).

Reference result: ``0`` (no pool on the host).
Bug result: ``AttributeError: module 'torch._C' has no attribute '_host_emptyCache'``.
On a GPU build it runs, and also empties torch's caching host allocator of every other
user's idle pinned blocks.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target

from ._common import buffer_utils_ns, fork, make_target


def empty_staging_cache() -> int:
    """Release every staging chunk whose copies have completed, in every pool; returns the bytes released."""
    total = 0
    for pool in list(_POOLS.values()):
        with pool.lock:
            total += pool.trim()
    torch._C._host_emptyCache()  # BUG: added "and hand them back to the OS", a binding only CUDA builds have
    return total


def target() -> Target:
    f = fork("b15", _staging={"empty_staging_cache": empty_staging_cache})
    return make_target(
        "b15_empty_cache_host_release",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
