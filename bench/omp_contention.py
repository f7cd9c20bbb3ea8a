"""How long one host ``copy_`` takes when other threads want the same cores (no GPU needed).

torch runs a host ``copy_`` of more than ``at::internal::GRAIN_SIZE`` (32,768) elements as
one OpenMP parallel region over ``torch.get_num_threads()`` threads, and a region ends
only when its slowest thread does. When every core already has a runnable thread, one
of the team waits for a scheduler time slice and the whole copy with it. On the H200 host
(16 cores) a staging trace (``H2D_STAGING_TRACE``) saw 5-8 ms per region with a second pytest worker
on the cores; this script measures the effect directly, on any machine, for payload sizes
around the reference's staging sizes.

For each size: the median and the maximum of ``reps`` copies (pageable source into a
preallocated destination, both touched first) with torch's default thread count, with
one thread, and with ``numpy.copyto`` (one thread, no OpenMP), first on a quiet machine,
then with ``--spinners`` processes spinning in pure Python (default: one per core, the
cores' share a busy serving process or a second test worker takes).

    python bench/omp_contention.py [--out FILE.md] [--spinners N] [--reps N]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import sys
import time

import numpy as np
import torch

SIZES = [64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20]


def _spin(stop: mp.synchronize.Event) -> None:
    while not stop.is_set():
        pass


def _times(fn, reps: int) -> tuple[float, float]:
    fn()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - t0) / 1e3)
    return statistics.median(samples), max(samples)


def measure(reps: int) -> list[dict]:
    rows = []
    default_threads = torch.get_num_threads()
    for nbytes in SIZES:
        src = torch.arange(nbytes, dtype=torch.uint8)
        dst = torch.empty_like(src)
        dst.copy_(src)
        row = {"bytes": nbytes}
        torch.set_num_threads(default_threads)
        row["torch_default"] = _times(lambda: dst.copy_(src), reps)
        torch.set_num_threads(1)
        row["torch_1_thread"] = _times(lambda: dst.copy_(src), reps)
        torch.set_num_threads(default_threads)
        s, d = src.numpy(), dst.numpy()
        row["numpy_copyto"] = _times(lambda: np.copyto(d, s), reps)
        rows.append(row)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--spinners", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    quiet = measure(args.reps)
    stop = mp.Event()
    procs = [mp.Process(target=_spin, args=(stop,), daemon=True) for _ in range(args.spinners)]
    for p in procs:
        p.start()
    time.sleep(0.5)
    try:
        busy = measure(args.reps)
    finally:
        stop.set()
        for p in procs:
            p.join(5)
    lines = [
        f"# Host copy_ under CPU contention: {os.cpu_count()} cores, torch {torch.__version__} "
        f"(intra-op threads {torch.get_num_threads()}), numpy {np.__version__}, {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
        "",
        f"us per copy, median / max of {args.reps}; contended: {args.spinners} pure-Python spinning processes",
        "",
        "| bytes | machine | torch, default threads | torch, 1 thread | numpy.copyto |",
        "|---|---|---|---|---|",
    ]
    for label, rows in (("quiet", quiet), ("contended", busy)):
        for r in rows:
            cells = " | ".join(
                f"{r[k][0]:.1f} / {r[k][1]:.1f}" for k in ("torch_default", "torch_1_thread", "numpy_copyto")
            )
            lines.append(f"| {r['bytes']:,} | {label} | {cells} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
