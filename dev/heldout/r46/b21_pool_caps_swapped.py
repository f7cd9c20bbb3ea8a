"""b21 (GPU-only): the retained-bytes caps of the small and the large pools are swapped.

Where: ``_staging.pool_for``, where a pool is created: the reference caps a small pool at
``SMALL_MAX_RETAINED_BYTES`` (64 MiB) and a large one at ``max(MAX_RETAINED_BYTES, 2 *
chunk_bytes)`` (1 GiB, or two blocks). The bug has the two arms of the conditional
expression the other way round (``... if small else ...`` rewritten as ``... if not small
else ...`` with the arms kept).

Why realistic: a one-token inversion in a conditional expression, invisible at small
sizes. A large pool's cap becomes max(64 MiB, one block): its backpressure rule ("at the
cap, wait for the oldest block's copy") fires at the second large call behind queued work,
so a call that should return at once waits for the whole forward pass queued before it.

On a CPU-only host the pools are never used: every call behaves as the control. On one
CUDA GPU: ``a = np.ones(16 << 20, np.int32)`` (64 MiB); ``torch.cuda._sleep(int(2e9))``;
then two calls ``async_tensor_h2d(a, device="cuda:0")`` timed on the host: the reference
returns from both long before the sleep ends (it allocates a second block); the bug's
second call returns only after the sleep and the first copy have run (read off an event
recorded after the sleep: complete when the call returns).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def pool_for(device, chunk_bytes, pin, *, small):
    """The pool of ``chunk_bytes`` chunks (sub-allocated if ``small``) for copies to ``device``, created on first use."""
    key = (device, chunk_bytes, pin, small)
    pool = _POOLS.get(key)
    if pool is None:
        with _POOLS_LOCK:
            # BUG: arms swapped; was `SMALL_MAX_RETAINED_BYTES if small else max(MAX_RETAINED_BYTES, 2 * chunk_bytes)`
            cap = max(MAX_RETAINED_BYTES, 2 * chunk_bytes) if small else SMALL_MAX_RETAINED_BYTES
            pool = _POOLS.get(key) or _POOLS.setdefault(
                key, StagingPool(device, chunk_bytes, pin=pin, small=small, max_retained=cap)
            )
    return pool


def target() -> Target:
    f = fork("b21", _staging={"pool_for": pool_for})
    return make_target(
        "b21_pool_caps_swapped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b21"),
    )
