"""Where the reference's host time goes behind a busy stream, phase by phase (issue 12, bench row (b)).

At 8cdcd4f the bench's (b) row had the reference at 1.93 ms for 16 MiB behind 100 ms of
queued work, against 0.80-0.82 ms for vLLM and a pinned ``torch.empty`` + ``copy_``, and a
plain host copy of 0.22 ms. This replays that row with the pooled path's phases timed
(pool lookup, take, host copy, start event, the DMA call, give-back) and a torch.profiler
table of one call, and the same for the caching-host-allocator pattern. Needs a GPU.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from h2d_impl import _staging, async_tensor_h2d  # noqa: E402
from h2d_impl.h2d import _dma  # noqa: E402

DEV = torch.device("cuda", 0)


def phased(source: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
    """_copy_pooled's body (h2d_impl/h2d.py) with a timestamp after each phase (ms)."""
    t = [time.perf_counter()]
    nbytes = source.numel() * source.element_size()
    block_bytes = max(_staging.MIN_BLOCK_BYTES, 1 << (nbytes - 1).bit_length())
    pool = _staging.pool_for(DEV, block_bytes, True, small=False)
    t.append(time.perf_counter())
    with pool.lock:
        block = pool.take(nbytes)
        t.append(time.perf_counter())
        staging = block.tensor(source.shape, source.dtype)
        staging.copy_(source)
        t.append(time.perf_counter())
        pool.mark_start(block)
        t.append(time.perf_counter())
        result = _dma(staging, DEV, None)
        t.append(time.perf_counter())
        pool.give_back(block)
        t.append(time.perf_counter())
    names = ["pool_for", "take", "host_copy", "mark_start", "dma_call", "give_back"]
    return result, {n: (t[i + 1] - t[i]) * 1e3 for i, n in enumerate(names)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/diag")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); torch.cuda._sleep(1_000_000); e.record(); e.synchronize()
    cpm = 1_000_000 / s.elapsed_time(e)
    L = [f"# Busy-stream phases, {torch.cuda.get_device_name(0)}, torch {torch.__version__}, {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}", ""]
    for nbytes in [1 << 20, 4 << 20, 16 << 20, 64 << 20]:
        data = torch.arange(nbytes // 4, dtype=torch.int32)
        pinned = torch.empty_like(data, pin_memory=True)
        pinned.copy_(data)
        hc = []
        for _ in range(7):
            t0 = time.perf_counter(); pinned.copy_(data); hc.append((time.perf_counter() - t0) * 1e3)
        L.append(f"## {nbytes:,} B: plain host copy ms (7 reps): {', '.join(f'{x:.3f}' for x in hc)}")
        async_tensor_h2d(data, DEV)  # warm-up, as the bench
        torch.cuda.synchronize()
        for label, busy_ms in (("idle", 0.0), ("busy 100 ms", 100.0)):
            rows = []
            for _ in range(5):
                torch.cuda.synchronize()
                if busy_ms:
                    torch.cuda._sleep(int(busy_ms * cpm))
                t0 = time.perf_counter()
                _, ph = phased(data)
                ph["total"] = (time.perf_counter() - t0) * 1e3
                rows.append(ph)
                torch.cuda.synchronize()
            L.append(f"- reference phases, {label} (ms, each rep): " + "; ".join(" ".join(f"{k}={v:.3f}" for k, v in r.items()) for r in rows))
            cha = []
            for _ in range(5):
                torch.cuda.synchronize()
                if busy_ms:
                    torch.cuda._sleep(int(busy_ms * cpm))
                t0 = time.perf_counter()
                st = torch.empty_like(data, pin_memory=True); st.copy_(data); st.to(DEV, non_blocking=True)
                t1 = time.perf_counter()
                cha.append((t1 - t0) * 1e3)
                torch.cuda.synchronize()
            L.append(f"- pinned torch.empty + copy_ + .to, {label} (ms): {', '.join(f'{x:.3f}' for x in cha)}")
            ref = []
            for _ in range(5):
                torch.cuda.synchronize()
                if busy_ms:
                    torch.cuda._sleep(int(busy_ms * cpm))
                t0 = time.perf_counter(); async_tensor_h2d(data, DEV); ref.append((time.perf_counter() - t0) * 1e3)
                torch.cuda.synchronize()
            L.append(f"- async_tensor_h2d, {label} (ms): {', '.join(f'{x:.3f}' for x in ref)}")
        L.append(f"- pool stats: {_staging.staging_stats()}")
        L.append("")
        print("\n".join(L[-8:]), flush=True)
    data = torch.arange((16 << 20) // 4, dtype=torch.int32)
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    torch.cuda._sleep(int(100 * cpm))
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        async_tensor_h2d(data, DEV)
    torch.cuda.synchronize()
    L += ["## torch.profiler, one 16 MiB call behind 100 ms (CPU time)", "", "```", prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15), "```"]
    open(os.path.join(args.out, "diag_busy_phases.md"), "w").write("\n".join(L) + "\n")
    print(L[-3])
    return 0


if __name__ == "__main__":
    sys.exit(main())
