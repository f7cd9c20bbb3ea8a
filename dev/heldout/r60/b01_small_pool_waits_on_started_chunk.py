"""b01 (GPU): the small pool, like the large ones, waits for its oldest chunk once that chunk's first copy started.

Where: ``h2d_impl/_staging.py::StagingPool.__init__`` (the ``wait_if_started`` flag), read by ``StagingPool._take``
when the small pool (1 MiB chunks, payloads of at most 256 KiB: every decode-step call) opens a new chunk while
three are in flight.

Change: one policy for both kinds of pool ("a started chunk is our own running copy: waiting for it costs one DMA,
pinning a fresh 1 MiB chunk costs a ``cudaHostAlloc`` of about 1 ms on the H200")::

    self.wait_if_started = not small                                   # reference
    self.wait_if_started = True                                        # bug

The large pools' rule is sound because a block carries one copy: its ``start`` is recorded (``mark_start``) right
before its only DMA, so "started" means "only our DMA is left". A small chunk is different, as the comment the
change deleted said: its ``start`` is recorded when the chunk is opened, and it then collects every small call of
its stream until it is full, with any amount of other work (the step's forward pass) queued between its first copy
and its last. That its first copy started says nothing about when its last ends: ``oldest.done.synchronize()``
waits for whatever was queued on the stream after the chunk was opened. Once the small pool holds three chunks
(``_depth_blocks``) all in flight, the next chunk change waits for the oldest one's queued copies, i.e. behind the
queued work, where the reference pins a fourth chunk and returns. Values stay right; the call blocks.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d`` docstring: "the host waits only for its own copies already
running on the DMA engine, or when a size class already holds its cap (1 GiB or two blocks,
``H2D_STAGING_MAX_BYTES``) queued behind other work"; h2d_impl/_staging.py module docstring: "So a call waits for
the stream only for its own running copies or when a pool's cap of staging is already queued behind other work";
docs/contracts.md, non-blocking and step-loop: the calls never wait for the queued work.

Smallest input (one CUDA device, one stream, ``t = target()``, ``f = t.async_tensor_h2d``, the target's own
``stats = t.empty_cache.__globals__['staging_stats']``): ``f([0], device="cuda:0");
torch.cuda.synchronize()`` (the small pool's first chunk is opened on an idle stream: its start completes), then
``torch.cuda._sleep(2_000_000_000)`` (about a second of queued work), then twelve calls
``f(np.zeros(65536, np.int32), device="cuda:0")`` (256 KiB each: three fill the first chunk, four each the next two).
Reference: every call returns at once (the twelfth pins a fourth chunk; ``stats()['cuda:0/1048576/small']``:
``waits`` 0, 4 MiB retained). Bug: the twelfth call returns only when the queued work has ended (``waits`` 1, 3 MiB
retained). Every later chunk change behind a busy stream does the same while the oldest chunk is still queued.
Nothing of it runs for a host target (no clock: chunks are free at once).
"""

from __future__ import annotations

import collections
import threading
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

# ruff: noqa: F821  (the reference module's globals: _CudaClock, _Chunk, ...)


def __init__(
    self: Any,
    device: torch.device,
    chunk_bytes: int,
    *,
    pin: bool,
    small: bool,
    max_retained: int = _staging.MAX_RETAINED_BYTES,
    clock: Any = None,
) -> None:
    self.device = device
    # one rule for both kinds of pool: a started oldest is our own copy running, a wait of at most one DMA
    self.wait_if_started = True  # BUG (r60 b01): the small pool waits on a chunk whose *first* copy started
    self.chunk_bytes = chunk_bytes
    self.pin = pin
    self.max_retained = max(max_retained, chunk_bytes)
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
    # the open chunk is on cudaStreamPerThread: each copy reading it records its ``done`` (:meth:`copied`)
    self.open_owned = False
    self.clock = clock if clock is not None else (_CudaClock(device) if device.type == "cuda" else None)
    self.stream_key = self.clock.stream_key if self.clock is not None else (lambda: 0)


class StagingPool(_staging.StagingPool):
    __doc__ = _staging.StagingPool.__doc__


StagingPool.__init__ = rebind(__init__, _staging)  # type: ignore[method-assign]


def target() -> Target:
    f = fork("b01", _staging={"StagingPool": StagingPool})
    return make_target(
        "b01_small_pool_waits_on_started_chunk",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01"),
    )
