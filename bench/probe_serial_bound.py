"""Where the single-threaded host copy should stop (``SERIAL_COPY_MAX_BYTES``), measured idle and with one spinning process (needs a GPU).

At 92176ee the bench's (a) row for 65,536 int32 elements (256 KiB, copied on one thread since
the serial copy) read 48.7 / 46.6 us (ndarray / tensor) against vLLM's 38.4 / 35.4, where the
8cdcd4f bench (parallel copy) had it tied. ``bench/omp_contention.py`` had one thread as
fast as 16 up to 256 KiB on a quiet machine, and 16 threads at 8 ms with one other busy
process. This times whole ``async_tensor_h2d`` calls of 64-256 KiB with the serial bound as
shipped (256 KiB) and at 0 (torch's parallel ``copy_`` above 32,768 elements), and vLLM's
function, round by round with a rotating first case, quiet and then beside one process
spinning in pure Python.

    python bench/probe_serial_bound.py --out FILE.md
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import sys
import time
from typing import Any, Callable

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import h2d_impl  # noqa: E402
from h2d_impl import h2d as _h2d  # noqa: E402

DEV = torch.device("cuda", 0)


def _spin(stop: Any) -> None:
    while not stop.is_set():
        pass


def host_us(fn: Callable[[], Any], iters: int) -> tuple[float, float]:
    for _ in range(30):
        fn()
    torch.cuda.synchronize()
    times = []
    for i in range(iters):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
        if i % 64 == 63:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    return statistics.median(times) / 1e3, max(times) / 1e3


def with_bound(limit: int, fn: Callable[[], Any]) -> Callable[[], Any]:
    def call() -> Any:
        old = _h2d.SERIAL_COPY_MAX_BYTES
        _h2d.SERIAL_COPY_MAX_BYTES = limit
        try:
            return fn()
        finally:
            _h2d.SERIAL_COPY_MAX_BYTES = old
    return call


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/probe_serial_bound.md")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    try:
        from vllm.utils.torch_utils import async_tensor_h2d as vllm  # type: ignore
    except Exception:  # noqa: BLE001 - measured only where importable
        vllm = None
    ref = h2d_impl.async_tensor_h2d
    L = [f"# Serial-copy bound, {torch.cuda.get_device_name(0)}, torch {torch.__version__} ({torch.get_num_threads()} threads), "
         f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}, {args.rounds} rounds of 200 calls", "",
         "| machine | input | serial <= 256 KiB (as shipped) | parallel above 32,768 elements | vllm |", "|---|---|---|---|---|"]
    for machine in ("quiet", "1 spinner"):
        stop = mp.Event()
        procs = []
        if machine != "quiet":
            procs = [mp.Process(target=_spin, args=(stop,), daemon=True)]
            for p in procs:
                p.start()
            time.sleep(0.5)
        try:
            for nbytes in (64 << 10, 128 << 10, 256 << 10):
                for kind in ("ndarray", "tensor"):
                    data = np.arange(nbytes // 4, dtype=np.int32) if kind == "ndarray" else torch.arange(nbytes // 4, dtype=torch.int32)
                    cases = {"serial": with_bound(256 << 10, lambda: ref(data, DEV)), "parallel": with_bound(0, lambda: ref(data, DEV))}
                    if vllm is not None:
                        cases["vllm"] = lambda: vllm(data, DEV)
                    names = list(cases)
                    res: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
                    for r in range(args.rounds):
                        for n in names[r % len(names):] + names[: r % len(names)]:
                            res[n].append(host_us(cases[n], 200))
                    cells = [f"{statistics.median(m for m, _ in res[n]):.1f} us (max {max(x for _, x in res[n]):.0f})" for n in names]
                    L.append(f"| {machine} | {kind} {nbytes >> 10} KiB | " + " | ".join(cells) + (" | - |" if vllm is None else " |"))
                    print(L[-1], flush=True)
        finally:
            stop.set()
            for p in procs:
                p.join(2)
    L += ["", "cells: median over rounds of each round's median host us per call (max: the slowest single call)"]
    with open(args.out, "w") as fh:
        fh.write("\n".join(L) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
