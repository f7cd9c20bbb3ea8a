"""b23 pool_key_without_kind (GPU only) -- ``_staging.pool_for``.

What changed: the pool registry's key lost the ``small`` component::

    key = (device, chunk_bytes, pin, small)      # reference
    key = (device, chunk_bytes, pin)             # bug

Realistic: "the chunk size already tells the pools apart" -- except that the small pool's
chunk (``SMALL_CHUNK_BYTES``, 1 MiB) and the smallest large size class
(``MIN_BLOCK_BYTES``, 1 MiB) have the same size. Whichever is made first serves both: after
a small call, payloads of 256 KiB-1 MiB take whole chunks of the *small* pool, whose cap is
64 MiB (``SMALL_MAX_RETAINED_BYTES``), not 1 GiB; after such a payload first, small calls
share a large pool that waits as soon as its oldest chunk's first copy has started.

Why GPU only: pools serve CUDA targets alone; on a CPU-only host no public call reaches
``pool_for`` (repro.py runs the same calls on bug and control).

Promise broken (``async_tensor_h2d`` docstring: "the host waits only for its own copies
already running on the DMA engine, or when a size class already holds its cap (1 GiB or
two blocks, ``H2D_STAGING_MAX_BYTES``) queued behind other work"; reference.md: "allocates up
to a cap of max(1 GiB, two blocks) ..., waiting beyond it. Pools are per device and size
class"; README ``non-blocking``).

Smallest GPU input: one small call (``async_tensor_h2d([1, 2], device="cuda:0")``), then
``torch.cuda._sleep`` of about 1 s queued on the current stream, then 70 calls
``async_tensor_h2d(np.ones(131072, np.float32), device="cuda:0")`` (512 KiB each):
reference: all 70 return while the sleep still runs (the 1 MiB class holds at most 70 MiB
of its 1 GiB cap); bug: the 64th call waits for the oldest chunk's copy behind the sleep.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def pool_for(device, chunk_bytes, pin, *, small):
    """The pool of ``chunk_bytes`` chunks (sub-allocated if ``small``) for copies to ``device``, created on first use."""
    key = (device, chunk_bytes, pin)
    pool = _POOLS.get(key)  # noqa: F821
    if pool is None:
        with _POOLS_LOCK:  # noqa: F821
            cap = SMALL_MAX_RETAINED_BYTES if small else max(MAX_RETAINED_BYTES, 2 * chunk_bytes)  # noqa: F821
            pool = _POOLS.get(key) or _POOLS.setdefault(  # noqa: F821
                key, StagingPool(device, chunk_bytes, pin=pin, small=small, max_retained=cap)  # noqa: F821
            )
    return pool


def target() -> Target:
    f = fork("b23", _staging={"pool_for": pool_for})
    return make_target(
        "b23_pool_key_without_kind",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b23"),
    )
