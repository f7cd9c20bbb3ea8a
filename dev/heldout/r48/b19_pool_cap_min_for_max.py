"""b19 (GPU-only): a staging pool's cap clamped with ``min`` where ``max`` was meant: every pool's cap is one chunk.

Where: ``h2d_impl/_staging.py::StagingPool.__init__`` (pools exist only for CUDA targets).

Change (one line)::

    self.max_retained = max(max_retained, chunk_bytes)   # reference: "at least one chunk"
    self.max_retained = min(max_retained, chunk_bytes)   # bug: read as "at most"

``pool_for`` passes 1 GiB (or two blocks) for the large pools and 64 MiB for the small one;
with ``min`` each pool is "full" at one chunk or block. A call that needs a second one while
the first is still queued behind other work takes the backpressure branch and waits on the
oldest chunk's ``done`` event, i.e. for the whole queued stream: two large calls behind a
busy stream (the second waits), or small calls whose open chunk was closed by a stream
change (side streams, threads with their own streams) while its copies are queued.

Promise broken: docs/reference.md, "How it stages": "else it allocates while it holds less
than max(64 MiB, two blocks), waits if the oldest block's copy has already started (its own
DMA), and otherwise allocates up to a cap of max(1 GiB, two blocks)
(`H2D_STAGING_MAX_BYTES`), waiting beyond it"; h2d_impl/h2d.py ``async_tensor_h2d`` docstring:
"the host waits only for its own copies already running on the DMA engine, or when a size
class already holds its cap (1 GiB or two blocks, ``H2D_STAGING_MAX_BYTES``) queued behind
other work"; README, "does not block behind queued work"; docs/contracts.md, non-blocking and
step-loop ("the calls never waiting for the queued forward pass").

On a CPU-only host every public call behaves as the control's (no pool is ever made).

GPU input: ``x = np.ones(1 << 20, np.int32)`` (4 MiB); ``async_tensor_h2d(x, device='cuda')``
once on an idle stream, then ``torch.cuda._sleep(2 * 10**8)`` and two calls
``async_tensor_h2d(x, device='cuda')``. Reference: both return while the sleep runs (the
second allocates a second block). Bug: the second returns only after the sleep (it waits on
the first one's ``done`` event behind the queued work).
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from h2d_contracts.h2d_impl._staging import MAX_RETAINED_BYTES
from plumbing import bu_fork, fork, make_target, rebind

def __init__(
    self,
    device: torch.device,
    chunk_bytes: int,
    *,
    pin: bool,
    small: bool,
    max_retained: int = MAX_RETAINED_BYTES,
    clock: Any = None,
) -> None:
    self.device = device
    # A small pool's chunk collects many calls, with any amount of other work queued
    # between its first and last copy: that its first copy started says nothing about
    # when its last ends, so a small pool allocates rather than wait (below the cap).
    self.wait_if_started = not small
    self.chunk_bytes = chunk_bytes
    self.pin = pin
    self.max_retained = min(max_retained, chunk_bytes)  # BUG (r48 b19): min for max
    self.lock = threading.Lock()
    self._free: list[_Chunk] = []
    self._inflight: collections.deque[_Chunk] = collections.deque()
    self.retained = 0
    self.allocations = 0
    self.waits = 0
    # the open chunk of a small pool: sub-allocated until full or the stream changes
    self.open: _Chunk | None = None
    self.open_key: int = 0
    self.open_off = 0
    self.clock = clock if clock is not None else (_CudaClock(device) if device.type == "cuda" else None)
    self.stream_key: Callable[[], int] = self.clock.stream_key if self.clock is not None else (lambda: 0)


class StagingPool(_staging.StagingPool):
    __doc__ = _staging.StagingPool.__doc__
    __init__ = rebind(__init__, _staging)


def target() -> Target:
    f = fork("b19", _staging={"StagingPool": StagingPool})
    return make_target(
        "b19_pool_cap_min_for_max",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b19"),
    )
