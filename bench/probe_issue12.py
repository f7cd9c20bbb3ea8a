"""Issue 12 probe on a GPU: two design questions measured before either is built into the reference.

1. Driver staging of small pageable copies. CUDA documents that ``cudaMemcpyAsync`` from
   pageable host memory to the device copies the host bytes into a driver staging buffer
   before it returns ("API synchronization behavior"), and the bench measured pageable
   ``.to(non_blocking=True)`` of 4 KiB and 1 MiB returning in 0.02-0.14 ms behind 100 ms of
   queued work (reports/bench/2026-12-01_h200_40358f3). Unknown: how many such copies can
   queue behind a busy stream before one blocks (the driver's staging is finite), and
   whether every one is a snapshot. Measured: K back-to-back copies of S bytes behind a
   busy stream, each source overwritten right after its call, results checked at the end.

2. Chunked staging without one OpenMP region per piece. 4 MiB pieces through a small
   ring of pinned slots, each piece's host copy done by ``numpy.copyto`` (one memcpy, GIL
   released, no OpenMP team) in a pool of W Python threads, each piece's DMA issued in
   order by the calling thread as soon as its copy is done, each slot reused after its
   CUDA event. Measured against the reference (one block, one torch ``copy_``): steady
   throughput, and host time behind a busy stream with and without a competing process
   that runs 16-thread OpenMP copies (what a second pytest worker did at ef1e129).

Writes one JSON and one markdown file to --out. Needs a CUDA device.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from h2d_impl import async_tensor_h2d, empty_staging_cache  # noqa: E402

DEV = torch.device("cuda", 0)
MiB = 1 << 20


def cycles_per_ms() -> float:
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    torch.cuda._sleep(1_000_000)
    e.record()
    e.synchronize()
    return 1_000_000 / s.elapsed_time(e)


CPM = 0.0


def busy(ms: float) -> None:
    torch.cuda._sleep(int(ms * CPM))


# ---------------------------------------------------------------- 1. driver staging
def driver_staging(sizes: list[int], counts: list[int], busy_ms: float) -> list[dict]:
    rows = []
    for nbytes in sizes:
        n = max(1, nbytes // 4)
        for k in counts:
            srcs = [np.full(n, i, dtype=np.int32) for i in range(k)]
            torch.cuda.synchronize()
            busy(busy_ms)
            per = []
            outs = []
            t0 = time.perf_counter()
            for i in range(k):
                t = time.perf_counter()
                outs.append(torch.from_numpy(srcs[i]).to(DEV, non_blocking=True))
                srcs[i][:] = -1  # overwritten right after the call: the result must not see it
                per.append((time.perf_counter() - t) * 1e3)
            total = (time.perf_counter() - t0) * 1e3
            torch.cuda.synchronize()
            bad = sum(int((o != i).any()) for i, o in enumerate(outs))
            rows.append({"bytes": n * 4, "count": k, "busy_ms": busy_ms, "total_host_ms": total, "max_call_ms": max(per),
                         "median_call_ms": statistics.median(per), "not_snapshots": bad})
            print(f"driver staging {n*4:>9} B x{k:<4}: total {total:8.2f} ms, max call {max(per):8.3f} ms, wrong {bad}", flush=True)
    return rows


# ---------------------------------------------------------------- 2. threaded chunked staging
class ThreadedChunks:
    """Pieces of ``piece`` bytes through a ring of pinned slots (grown while its oldest is queued, up to ``cap``
    bytes); host copies by ``workers`` threads (numpy memcpy: no OpenMP team), DMAs issued in order."""

    def __init__(self, piece: int, slots: int, workers: int, cap: int = 1 << 30):
        self.piece, self.cap, self.workers = piece, cap, workers
        self.ring = [self._slot() for _ in range(slots)]
        self.next = 0
        self.pool = ThreadPoolExecutor(workers)

    def _slot(self) -> dict:
        t = torch.empty(self.piece, dtype=torch.uint8, pin_memory=True)
        return {"t": t, "np": t.numpy(), "ev": None, "busy": False}

    def __call__(self, src: torch.Tensor) -> torch.Tensor:
        src_np = src.reshape(-1).view(torch.uint8).numpy()
        nbytes = src_np.size
        out = torch.empty(src.shape, dtype=src.dtype, device=DEV)
        dst = out.view(-1).view(torch.uint8)
        starts = list(range(0, nbytes, self.piece))
        pending = []  # (slot, lo, hi, future), in order
        i = 0

        def submit(lo: int) -> None:
            hi = min(lo + self.piece, nbytes)
            slot = self.ring[self.next]
            if slot["busy"] or (slot["ev"] is not None and not slot["ev"].query() and (len(self.ring) + 1) * self.piece <= self.cap):
                slot = self._slot()  # the oldest slot is still queued: grow the ring, the new slot in its place
                self.ring.insert(self.next, slot)
            self.next = (self.next + 1) % len(self.ring)
            if slot["ev"] is not None:
                slot["ev"].synchronize()  # the slot's last DMA has run
                slot["ev"] = None
            slot["busy"] = True
            pending.append((slot, lo, hi, self.pool.submit(np.copyto, slot["np"][: hi - lo], src_np[lo:hi])))

        while i < len(starts) and len(pending) < self.workers:
            submit(starts[i]); i += 1
        while pending:
            slot, lo, hi, fut = pending.pop(0)
            fut.result()
            dst[lo:hi].copy_(slot["t"][: hi - lo], non_blocking=True)
            slot["ev"] = torch.cuda.Event()
            slot["ev"].record()
            slot["busy"] = False
            if i < len(starts):
                submit(starts[i]); i += 1
        return out


def throughput(fn, nbytes: int, total: int) -> float:
    data = torch.arange(nbytes // 4, dtype=torch.int32)
    calls = max(4, total // nbytes)
    for _ in range(min(calls, 8)):
        fn(data)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    keep = [fn(data) for _ in range(4)]
    for _ in range(calls - 4):
        fn(data)
    torch.cuda.synchronize()
    del keep
    return calls * nbytes / (time.perf_counter() - t0) / 1e9


def check(fn, nbytes: int) -> bool:
    data = torch.randint(-(1 << 30), 1 << 30, (nbytes // 4,), dtype=torch.int32)
    want = data.clone()
    busy(50)
    got = fn(data)
    data.fill_(7)
    return bool(torch.equal(got.cpu(), want))


def busy_host_ms(fn, nbytes: int, busy_ms: float, reps: int) -> tuple[float, float]:
    data = torch.arange(nbytes // 4, dtype=torch.int32)
    pinned = torch.empty_like(data, pin_memory=True)
    plain, call = [], []
    for _ in range(reps):
        torch.cuda.synchronize()
        t = time.perf_counter(); pinned.copy_(data); plain.append((time.perf_counter() - t) * 1e3)
        busy(busy_ms)
        t = time.perf_counter(); fn(data); call.append((time.perf_counter() - t) * 1e3)
        torch.cuda.synchronize()
    return statistics.median(plain), statistics.median(call)


COMPETITOR = "import torch,time\ntorch.set_num_threads(16)\na=torch.ones(64<<20,dtype=torch.uint8);b=torch.empty_like(a)\nend=time.time()+600\nwhile time.time()<end: b.copy_(a)\n"


def main() -> int:
    global CPM
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/probe12")
    ap.add_argument("--total-gb", type=float, default=2.0)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    CPM = cycles_per_ms()
    res: dict = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0), "cores": os.cpu_count(), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}

    def save():
        json.dump(res, open(os.path.join(args.out, "probe12.json"), "w"), indent=1)

    res["driver_staging"] = driver_staging([64, 4096, 65536, 262144, MiB, 4 * MiB], [1, 16, 256], 100.0)
    save()

    ref = lambda t: async_tensor_h2d(t, DEV)  # noqa: E731
    variants = {"reference": ref}
    for piece, slots, workers in [(4 * MiB, 16, 4), (4 * MiB, 16, 8), (1 * MiB, 32, 8), (2 * MiB, 16, 6)]:
        variants[f"threads p{piece // MiB}M s{slots} w{workers}"] = ThreadedChunks(piece, slots, workers)
    res["snapshot_ok"] = {name: check(fn, 64 * MiB + 12) for name, fn in variants.items()}
    print("snapshot", res["snapshot_ok"], flush=True)
    rows = []
    for nbytes in [4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB, 1024 * MiB]:
        src = torch.empty(min(nbytes, 256 * MiB), dtype=torch.uint8, pin_memory=True); dst = torch.empty_like(src, device=DEV)
        for _ in range(3): dst.copy_(src, non_blocking=True)
        torch.cuda.synchronize(); t = time.perf_counter()
        for _ in range(10): dst.copy_(src, non_blocking=True)
        torch.cuda.synchronize(); limit = 10 * src.numel() / (time.perf_counter() - t) / 1e9
        del src, dst
        row = {"bytes": nbytes, "dma_limit": limit}
        for name, fn in variants.items():
            empty_staging_cache()
            row[name] = throughput(fn, nbytes, int(args.total_gb * (1 << 30)))
        rows.append(row)
        print("throughput", {k: (round(v, 1) if isinstance(v, float) else v) for k, v in row.items()}, flush=True)
        res["throughput"] = rows
        save()
    crow = []
    for contended in (False, True):
        proc = subprocess.Popen([sys.executable, "-c", COMPETITOR]) if contended else None
        if proc:
            time.sleep(2)
        try:
            for nbytes in [16 * MiB, 64 * MiB, 256 * MiB]:
                r = {"bytes": nbytes, "contended": contended}
                for name, fn in variants.items():
                    plain, call = busy_host_ms(fn, nbytes, 150.0 if nbytes > 64 * MiB else 100.0, 5)
                    r[name] = {"plain_copy_ms": plain, "call_ms": call, "bound_ms": 1 + 1.2 * plain, "ok": call <= 1 + 1.2 * plain}
                crow.append(r)
                print("busy", nbytes, contended, {k: (round(v["plain_copy_ms"], 2), round(v["call_ms"], 2)) for k, v in r.items() if isinstance(v, dict)}, flush=True)
                res["busy"] = crow
                save()
        finally:
            if proc:
                proc.kill()
    # markdown
    L = [f"# Issue 12 probe, {res['gpu']}, torch {res['torch']}, {res['cores']} cores, {res['date']}", "", "## 1. pageable .to(non_blocking=True) behind 100 ms queued", "",
         "| bytes | calls | total host ms | max call ms | not snapshots |", "|---|---|---|---|---|"]
    L += [f"| {r['bytes']:,} | {r['count']} | {r['total_host_ms']:.2f} | {r['max_call_ms']:.3f} | {r['not_snapshots']} |" for r in res["driver_staging"]]
    L += ["", f"snapshot checks (64 MiB + 12 B behind 50 ms): {res['snapshot_ok']}", "", "## 2. steady throughput, pageable int32 (GB/s)", ""]
    names = list(variants)
    L += ["| bytes | DMA limit | " + " | ".join(names) + " |", "|---" * (len(names) + 2) + "|"]
    L += [f"| {r['bytes']:,} | {r['dma_limit']:.1f} | " + " | ".join(f"{r[n]:.1f} ({r[n] / r['dma_limit']:.0%})" for n in names) + " |" for r in rows]
    L += ["", "## 3. host ms behind a busy stream (plain host-to-pinned copy / call; bound 1 + 1.2x plain)", ""]
    L += ["| bytes | competing OpenMP process | " + " | ".join(names) + " |", "|---" * (len(names) + 2) + "|"]
    L += [f"| {r['bytes']:,} | {r['contended']} | " + " | ".join(f"{r[n]['plain_copy_ms']:.2f} / {r[n]['call_ms']:.2f} {'ok' if r[n]['ok'] else 'OVER'}" for n in names) + " |" for r in crow]
    open(os.path.join(args.out, "probe12.md"), "w").write("\n".join(L) + "\n")
    print("\n".join(L))
    return 0


if __name__ == "__main__":
    sys.exit(main())
