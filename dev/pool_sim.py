"""The staging pool's steady state on a simulated clock: throughput and allocations per depth policy (a CPU lab model).

Why: in the bench's throughput section (c) on the H200 (docs/performance.md) the reference sat at 25 GB/s at
4 MiB against a 52.5 GB/s DMA limit. This drives the real :class:`h2d_impl._staging.StagingPool` (its
``take``/``mark_start``/``give_back``, as ``_copy_pooled`` calls them) with a timed clock: host time advances by
each step's cost, one stream runs DMAs in order, an event completes when the work queued before it has, a
``synchronize`` moves host time to that point, and each new pinned block costs ``--pin-us-per-mib`` of host time
(``cudaHostAlloc``: about 0.25 ms per MiB on the H200, _staging's module docstring); ``--jitter-us`` adds an
exponential extra host time per call (seeded). It runs the bench's sample
(caches emptied, ``calls`` warm calls, or ``min(calls, 8)`` with ``--warm bench`` as the bench did before
2026-12-06, a sync, ``calls`` timed calls, a sync) and prints GB/s and the allocations and waits within the timed
calls, per ``MIN_DEPTH_BYTES``, the depth in blocks at ``--blocks`` (no spare block; ``AHEAD_BYTES`` as shipped
unless ``--ahead-mib``). With the host ahead of the DMA (the H100 bench's 4 MiB row: host copy 283 GB/s), e.g.
``--host-gbps 300 --dma-gbps 52 --call-us 20 --pin-us-per-mib 450 --depths-mib 0``, the old warm-up
(``--warm bench``) leaves 8 of a 12-block pool's allocations inside the 4 MiB sample's timed calls, the whole-sample
warm-up none; with the defaults (host slower than the DMA) the pool never gets ahead enough to grow.

The costs are inputs, not measurements of this run; ``dev/pool_depth_probe.py`` measures the same sample on a GPU.
Usage: ``python3 dev/pool_sim.py [--host-gbps 80 --dma-gbps 52.5 --call-us 30]``.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

import torch

from h2d_contracts.h2d_impl import _staging


class Stream:
    def __init__(self) -> None:
        self.tail = 0.0  # when the last queued work item completes (us)


class Event:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.at = 0.0

    def record(self, stream: Stream) -> None:
        self.at = max(stream.tail, self.clock.now)

    def query(self) -> bool:
        self.clock.now += self.clock.query_us
        return self.clock.now >= self.at

    def synchronize(self) -> None:
        self.clock.now = max(self.clock.now, self.at)


class Clock:
    def __init__(self, query_us: float) -> None:
        self.now = 0.0
        self.stream = Stream()
        self.query_us = query_us

    def stream_key(self) -> int:
        return 1

    def current_stream(self) -> Stream:
        return self.stream

    def event(self) -> Event:
        return Event(self)


def sample(depth: int, nbytes: int, calls: int, args: Any) -> tuple[float, int, int, int]:
    """GB/s of the timed calls, and the allocations and waits within them, and the blocks held at the end."""
    _staging.MIN_DEPTH_BYTES, _staging.MIN_DEPTH_BLOCKS, _staging.SPARE_BLOCK_MAX_BYTES = depth, args.blocks, 0
    _staging.AHEAD_BYTES = args.ahead_mib << 20
    clock = Clock(args.query_us)
    pool = _staging.StagingPool(torch.device("cpu"), nbytes, pin=False, small=False, clock=clock)
    alloc = pool._alloc

    def timed_alloc() -> Any:
        clock.now += args.pin_us_per_mib * nbytes / (1 << 20)
        return alloc()

    pool._alloc = timed_alloc  # type: ignore[method-assign]
    dma_us = nbytes / (args.dma_gbps * 1e3)
    host_us = args.call_us + nbytes / (args.host_gbps * 1e3)

    rng = random.Random(0)

    def call() -> None:
        block = pool.take(nbytes)
        clock.now += host_us + (rng.expovariate(1 / args.jitter_us) if args.jitter_us else 0.0)
        pool.mark_start(block)
        clock.stream.tail = max(clock.stream.tail, clock.now) + dma_us
        pool.give_back(block)

    for _ in range(calls if args.warm == "sample" else min(calls, 8)):
        call()
    clock.now = max(clock.now, clock.stream.tail)
    a0, w0, t0 = pool.allocations, pool.waits, clock.now
    for _ in range(calls):
        call()
    clock.now = max(clock.now, clock.stream.tail)
    return calls * nbytes / ((clock.now - t0) * 1e3), pool.allocations - a0, pool.waits - w0, pool.retained // nbytes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host-gbps", type=float, default=80.0, help="host copy into a staging block")
    ap.add_argument("--dma-gbps", type=float, default=52.5)
    ap.add_argument("--call-us", type=float, default=30.0, help="a call's host time besides its copy")
    ap.add_argument("--pin-us-per-mib", type=float, default=250.0)
    ap.add_argument("--jitter-us", type=float, default=0.0, help="mean of an exponential extra host time per call")
    ap.add_argument("--query-us", type=float, default=1.0)
    ap.add_argument("--depths-mib", type=int, nargs="+", default=[64, 0, 8, 16])
    ap.add_argument("--blocks", type=int, default=2, help="MIN_DEPTH_BLOCKS (2: the rule before it existed)")
    ap.add_argument("--ahead-mib", type=int, default=_staging.AHEAD_BYTES >> 20, help="AHEAD_BYTES (0: off)")
    ap.add_argument(
        "--warm",
        choices=("bench", "sample"),
        default="sample",
        help="warm calls: min(calls, 8) (the bench before 2026-12-06), or calls",
    )
    args = ap.parse_args()
    for mib in (1, 4, 16, 64):
        calls = max(8, 2048 // mib // 3)  # the bench's section (c): 2 GiB per size in three rounds
        for depth in args.depths_mib:
            gbps, allocs, waits, held = sample(depth << 20, mib << 20, calls, args)
            print(
                f"{mib:3d} MiB x{calls:3d} depth {depth:3d} MiB: {gbps:5.1f} GB/s, timed allocations {allocs:2d}, waits {waits:3d}, blocks held {held}"
            )


if __name__ == "__main__":
    main()
