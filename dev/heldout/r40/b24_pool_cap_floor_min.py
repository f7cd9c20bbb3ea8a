"""b24 (GPU-only): a staging pool's byte cap is floored with ``min`` instead of ``max``.

Where: ``h2d_impl/_staging.py``, ``StagingPool.__init__``.

Change: ``self.max_retained = max(max_retained, chunk_bytes)`` ->
``self.max_retained = min(max_retained, chunk_bytes)``.

Why plausible: the line reads as "the retained bytes are bounded by the cap and the chunk
size"; ``min``/``max`` for "at least one chunk" is a classic slip, and nothing fails on a
quiet stream. Every pool's cap becomes one chunk (1 MiB for the small pool instead of
64 MiB; one block for a large size class instead of 1 GiB): as soon as one chunk is in
flight, the next ``take`` that finds none finished is over the cap and *waits* for the
oldest copy (``oldest.done.synchronize()``), even when that copy sits behind other work.

Promise broken: ``async_tensor_h2d`` docstring: "the host waits only for its own copies
already running on the DMA engine, or when a size class already holds its cap (1 GiB or
two blocks, ``H2D_STAGING_MAX_BYTES``) queued behind other work"; README non-blocking /
step-loop: calls "never waiting for the queued forward pass".

Smallest input (CUDA): queue 100 ms of work on the current stream
(``torch.cuda._sleep``), then two back-to-back ``async_tensor_h2d(np.zeros(1 << 20,
np.int32), device='cuda')`` calls (4 MiB each, the same 4 MiB size class), or small calls
that alternate between two streams (each switch closes the small chunk).
Reference: both calls return at once (the second allocates a second block).
Bug: the second call blocks until the busy work and the first copy finish (~100 ms).
Not visible on a CPU-only host (no staging pool is used for host targets).
"""

from __future__ import annotations

from typing import Any

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl._staging import MAX_RETAINED_BYTES, StagingPool

from ._common import Fork, fork, fork_target_full


class _Pool(StagingPool):
    __doc__ = StagingPool.__doc__

    def __init__(
        self,
        device: Any,
        chunk_bytes: int,
        *,
        pin: bool,
        small: bool,
        max_retained: int = MAX_RETAINED_BYTES,
        clock: Any = None,
    ) -> None:
        super().__init__(device, chunk_bytes, pin=pin, small=small, max_retained=max_retained, clock=clock)
        self.max_retained = min(max_retained, chunk_bytes)  # BUG: min for max


def _fork() -> Fork:
    return fork("b24", _staging={"StagingPool": _Pool})


def target() -> Target:
    return fork_target_full("b24_pool_cap_floor_min", _fork())
