"""Why 4 and 16 MiB staged copies stay far under the DMA limit in steady state: the pool's depth, rings, fresh DMA, cold pins (a GPU lab probe).

Why: on the H200 (docs/performance.md) every staged pattern sat at 23-27 GB/s at 4 MiB in the bench's
throughput section (c) while the pinned DMA alone ran at 52.5 GB/s and the host copy at 211; the reference
reached 37 GB/s at 16 MiB and 50 at 64 MiB. Its pool then allocated rather than waited while it held less than
``max(MIN_DEPTH_BYTES, two blocks)`` (64 MiB: 16 blocks of 4 MiB), and a ``cudaHostAlloc`` of 4 MiB costs about
a millisecond, a dozen of the DMAs it could have overlapped (``dev/pool_sim.py`` models it). Four measurements,
each printed as it ends:

1. ``depth``: the reference in the bench's own steady-state sample (both caches emptied, ``calls`` warm calls,
   then ``calls`` timed back to back, the first four results held) with the pools' depth at
   ``max(64 MiB, two blocks)`` (before ``MIN_DEPTH_BLOCKS``) and at k blocks for each k of ``--blocks``, or, with
   ``--ahead-mib``, the shipped depth with each ``AHEAD_BYTES``; three interleaved rounds; GB/s, and the pool's
   allocations and waits within the timed calls;
2. ``ring``: ``--rings`` preallocated pinned buffers taken in turn, each reused once its DMA's event completed,
   in the same sample (the simplest overlapping loop, no allocation in the timed calls);
3. ``fresh``: one DMA's rate (CUDA events) from a pinned buffer the host has just written with ``copy_``
   against a DMA of the same buffer again (five of each): does a freshly written buffer DMA slower?
4. ``cold``: ``torch.empty(n, pin_memory=True)`` with torch's caching host allocator emptied, idle and behind
   100 ms queued (median of 5, ms): what a cold small call's first chunk of n bytes costs.

Usage (a CUDA machine, the kit installed): ``OMP_NUM_THREADS=16 python3 dev/pool_depth_probe.py``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import _staging

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from h2d_bench import cycles_per_ms, empty_host_caches, one_dma_gbps, steady_gbps  # the bench's own

sys.path.insert(0, str(Path(__file__).resolve().parent))
from large_copy_probe import ring  # the same bare ring of preallocated pinned buffers


def pool_counts() -> tuple[int, int]:
    stats = _staging.staging_stats().values()
    return sum(s["allocations"] for s in stats), sum(s["waits"] for s in stats)


def steady(call: Callable[[], Any], nbytes: int, calls: int, device: torch.device) -> tuple[float, int, int]:
    """GB/s of ``calls`` timed calls as the bench's section (c) samples them (its own :func:`steady_gbps`), and the
    pool's allocations and waits within them."""
    before: list[tuple[int, int]] = []
    gbps = steady_gbps(call, nbytes, calls, device, before_timing=lambda: before.append(pool_counts()))
    (a0, w0), (a1, w1) = before[0], pool_counts()
    return gbps, a1 - a0, w1 - w0


def with_depth(
    depth_bytes: int, blocks: int, data: torch.Tensor, device: torch.device, ahead: int = 0, spare: int = 0
) -> Callable[[], torch.Tensor]:
    """The reference with its pools' depth ``max(depth_bytes, blocks blocks)`` for the call (one block more up to
    ``spare`` bytes a block, :data:`_staging.SPARE_BLOCK_MAX_BYTES`), and ``ahead`` bytes of blocks from
    :data:`_staging.AHEAD_MIN_BLOCK_BYTES` (:data:`_staging.AHEAD_BYTES`; 0: off)."""
    knobs = ("MIN_DEPTH_BYTES", "MIN_DEPTH_BLOCKS", "SPARE_BLOCK_MAX_BYTES", "AHEAD_BYTES")

    def call() -> torch.Tensor:
        saved = [getattr(_staging, k) for k in knobs]
        for k, v in zip(knobs, (depth_bytes, blocks, spare, ahead)):
            setattr(_staging, k, v)
        try:
            return h2d_impl.async_tensor_h2d(data, device)
        finally:
            for k, v in zip(knobs, saved):
                setattr(_staging, k, v)

    return call


def fresh_dma(data: torch.Tensor, device: torch.device, reps: int = 5) -> tuple[float, float]:
    pinned = torch.empty_like(data, pin_memory=True)
    dst = torch.empty_like(data, device=device)
    fresh, again = [], []
    for _ in range(reps):
        pinned.copy_(data)
        fresh.append(one_dma_gbps(dst, pinned))
        again.append(one_dma_gbps(dst, pinned))
    return statistics.median(fresh), statistics.median(again)


def cold_pin_ms(nbytes: int, device: torch.device, busy_cycles: int) -> float:
    times = []
    for _ in range(5):
        torch.cuda.synchronize(device)
        torch._C._host_emptyCache()
        if busy_cycles:
            torch.cuda._sleep(busy_cycles)
        t0 = time.perf_counter_ns()
        block = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
        times.append((time.perf_counter_ns() - t0) / 1e6)
        del block
    torch.cuda.synchronize(device)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes-mib", type=int, nargs="+", default=[1, 4, 16, 64])
    ap.add_argument("--blocks", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--total-mib", type=int, default=682, help="bytes per size, all three rounds (the bench: 2048)")
    ap.add_argument(
        "--ahead-mib",
        type=int,
        nargs="*",
        default=[],
        help="compare these AHEAD_BYTES (MiB; 0: off) instead of --blocks",
    )
    ap.add_argument("--rings", type=int, nargs="+", default=[2, 3], help="bare rings of this many pinned buffers")
    ap.add_argument("--skip-cold", action="store_true", help="skip measurement 4")
    args = ap.parse_args()
    device = torch.device("cuda", torch.cuda.current_device())
    torch.cuda.synchronize(device)
    for mib in args.sizes_mib:
        nbytes = mib << 20
        data = torch.arange(nbytes // 4, dtype=torch.int32)
        calls = max(8, args.total_mib // mib // 3)
        pats: dict[str, Callable[[], torch.Tensor]] = {}
        if args.ahead_mib:  # the shipped block counts (three of at most 4 MiB, two above) with each AHEAD_BYTES
            shipped = (_staging.MIN_DEPTH_BYTES, _staging.MIN_DEPTH_BLOCKS)
            spare = _staging.SPARE_BLOCK_MAX_BYTES
            pats.update({f"ahead {m} MiB": with_depth(*shipped, data, device, m << 20, spare) for m in args.ahead_mib})
        else:
            pats["64 MiB"] = with_depth(64 << 20, 2, data, device)  # max(64 MiB, two blocks): the depth before
            pats.update({f"{k} blocks": with_depth(0, k, data, device) for k in args.blocks})
        pats.update({f"ring{k}": ring(k, data, device) for k in args.rings})
        results: dict[str, list[tuple[float, int, int]]] = {name: [] for name in pats}
        names = list(pats)
        for r in range(3):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                results[name].append(steady(pats[name], nbytes, calls, device))
        for name, rs in results.items():
            print(
                f"depth {mib:4d} MiB x{calls} {name:14s} GB/s "
                + " ".join(f"{g:5.1f}" for g, _, _ in rs)
                + "  allocations "
                + ",".join(str(a) for _, a, _ in rs)
                + "  waits "
                + ",".join(str(w) for _, _, w in rs),
                flush=True,
            )
        f, a = fresh_dma(data, device)
        print(f"fresh {mib:4d} MiB DMA GB/s just written {f:5.1f} again {a:5.1f}", flush=True)
        del pats
        empty_host_caches()
    if args.skip_cold:
        return
    busy = int(100 * cycles_per_ms(device))
    for n in (4 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20):
        print(
            f"cold {n:>8d} B pin ms idle {cold_pin_ms(n, device, 0):.3f} busy {cold_pin_ms(n, device, busy):.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
