"""Where a cold small call's time goes behind a busy stream: the reference against vLLM (a GPU lab probe).

Why: target 4 of issue 24 (the first call of each size, both host caches emptied, 100 ms queued on the stream:
reference <= vLLM) fails at 4 KiB on the H200 (docs/performance.md: 1.42 against 1.17 ms, 1.70 against 1.09),
and a cold pinned allocation costs the same 0.9 ms at 4 KiB and at the reference's 1 MiB small chunk
(``dev/pool_depth_probe.py``), so the chunk's size is not the gap. This probe times the bench's section (e) sample
(``empty_host_caches()``, ``torch.cuda._sleep`` of ``--busy-ms``, one call of a pageable int32 tensor, wall clock)
for each pattern of the bench in ``--rounds`` interleaved rounds, then one more cold call of each under
``torch.profiler`` (CPU activity) and prints its ten most expensive operators by self CPU time.

``--cprofile N``: each profiled call once more under Python's ``cProfile``, its N costliest functions by own time
(the reference's cold-path code outside torch's operators: the 2026-12-06 H100 run found the gap in no operator).

``--small-chunk-kib K ...``: also the reference with a small pool of K KiB chunks (a pool of its own); ``--alloc-kib
K ...``: also a bare pinned ``torch.empty`` of K KiB (what the first chunk's allocation alone costs).

``--before-mib``: first run every pattern through ``--before-calls`` back-to-back calls of each of these sizes (like
the bench's sections (a)-(d) before its cold section (e)): the bench's 4 KiB and 1 MiB cold rows ran over vLLM
in 22 and 20 of its 23 records of 2026-12-03 to 2026-12-06, where this probe alone (no calls before) had found a
tie on an H200; on an H100 on 2026-12-06 it found the gap with and without the calls before.

Usage (a CUDA machine, the kit installed, vLLM importable for its row): ``OMP_NUM_THREADS=16 python3
dev/cold_small_probe.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import functools
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from h2d_bench import cycles_per_ms, empty_host_caches, patterns  # the bench's cold start and patterns


def _with_small_chunk(chunk: int, data: torch.Tensor, device: torch.device) -> torch.Tensor:
    """``async_tensor_h2d(data, device)`` with the small pool's chunk ``chunk`` bytes (``_stage_small``'s default)."""
    from h2d_contracts.h2d_impl import async_tensor_h2d, h2d

    saved = h2d._stage_small.__defaults__
    h2d._stage_small.__defaults__ = (chunk,)
    try:
        return async_tensor_h2d(data, device)
    finally:
        h2d._stage_small.__defaults__ = saved


def _pinned_empty(nbytes: int, data: torch.Tensor, device: torch.device) -> torch.Tensor:
    return torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bytes", type=int, nargs="+", default=[4096, 1 << 20])
    ap.add_argument("--busy-ms", type=float, default=100.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--before-mib", type=int, nargs="*", default=[], help="sizes every pattern runs first (MiB)")
    ap.add_argument("--before-calls", type=int, default=8)
    ap.add_argument("--cprofile", type=int, default=0, help="also print this many rows of cProfile per profiled call")
    ap.add_argument(
        "--small-chunk-kib", type=int, nargs="*", default=[], help="also the reference with this small chunk"
    )
    ap.add_argument("--alloc-kib", type=int, nargs="*", default=[], help="also a bare pinned torch.empty of this size")
    args = ap.parse_args()
    if any(kib << 10 < max(args.bytes) for kib in args.small_chunk_kib):
        ap.error("--small-chunk-kib: a chunk smaller than a payload of --bytes (a slice would run past it)")
    device = torch.device("cuda", torch.cuda.current_device())
    cycles = int(args.busy_ms * cycles_per_ms(device))
    pats = {n: p for n, p in patterns().items() if n != "naive"}
    for kib in args.small_chunk_kib:  # the reference whose small pool opens chunks of kib KiB (its own pool)
        pats[f"ref_chunk{kib}k"] = functools.partial(_with_small_chunk, kib << 10)
    for kib in args.alloc_kib:  # the pinned allocation alone: what a cold chunk of that size costs
        pats[f"alloc{kib}k"] = functools.partial(_pinned_empty, kib << 10)
    for mib in args.before_mib:
        payload = torch.arange((mib << 20) // 4, dtype=torch.int32)
        for pat in pats.values():
            results = [pat(payload, device) for _ in range(args.before_calls)]
            torch.cuda.synchronize(device)
            del results
        print(f"before: {args.before_calls} calls of {mib} MiB by each pattern", flush=True)
    for nbytes in args.bytes:
        data = torch.arange(nbytes // 4, dtype=torch.int32)

        def cold(name: str, data: torch.Tensor = data, around: Any = None) -> float:
            """One cold call of ``name`` (the bench's section (e) sample), inside ``around`` (a profiler) if given."""
            empty_host_caches()
            torch.cuda._sleep(cycles)
            with around if around is not None else contextlib.nullcontext():
                t0 = time.perf_counter_ns()
                result = pats[name](data, device)
                ms = (time.perf_counter_ns() - t0) / 1e6
            torch.cuda.synchronize(device)
            del result
            return ms

        for name in pats:  # one warm call each: imports, first-use setup
            pats[name](data, device)
        times: dict[str, list[float]] = {n: [] for n in pats}
        names = list(pats)
        for r in range(args.rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                times[name].append(cold(name))
        for name, ts in times.items():
            print(
                f"cold {nbytes:>8d} B busy {args.busy_ms:.0f} ms {name:12s} ms median {statistics.median(ts):.3f} "
                + " ".join(f"{t:.3f}" for t in ts),
                flush=True,
            )
        for name in ("reference", "vllm"):
            if name not in pats:
                continue
            prof = profile(activities=[ProfilerActivity.CPU])
            cold(name, around=prof)
            print(f"profile {nbytes} B {name}:", flush=True)
            print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10), flush=True)
            if args.cprofile:
                # Python's own profiler: times the reference's Python functions and the C methods they call (a new
                # chunk, CUDA events, views), which torch.profiler's operator table leaves out
                py = cProfile.Profile()
                cold(name, around=py)
                # pstats prints whole milliseconds at best: the rows are printed here in microseconds
                rows = sorted(pstats.Stats(py).stats.items(), key=lambda kv: -kv[1][2])[: args.cprofile]
                print(f"cProfile {nbytes} B {name}: own us / with callees us / calls / function", flush=True)
                for (path, line, func), (_, calls, own, cum, _) in rows:
                    print(
                        f"  {own * 1e6:9.1f} {cum * 1e6:9.1f} {calls:4d} {Path(path).name}:{line}({func})", flush=True
                    )


if __name__ == "__main__":
    main()
