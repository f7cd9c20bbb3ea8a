"""Diagnostic: host ms behind a 100 ms busy stream (contract sequence: warm-up, sync, busy, timed call)
and steady throughput, for three staging variants of the reference. Single process.

Produced reports/bench/2026-11-30_nonblocking_diag.txt with the h2d_impl of 3c7ae18^, whose ``R._copy_chunked`` was
the one-block design; since then ``R._copy_chunked`` *is* the per-chunk design, so the
"one_block" variant below now measures the same code as "per_chunk"."""
import statistics, sys, time, os
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numpy as np, torch
from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import h2d as R

def per_chunk_blocks(source, dtype, dst, chunk_bytes, *, pin=True):  # the first design (one pinned block per chunk)
    src, dv = (source.reshape(-1), dst.view(-1)) if source.is_contiguous() else (source, dst)
    row = max(1, (src[0].numel() if src.dim() > 1 else 1) * dtype.itemsize); step = max(1, chunk_bytes // row)
    for s in range(0, src.shape[0], step):
        st = torch.empty(src[s:s+step].shape, dtype=dtype, pin_memory=True); st.copy_(src[s:s+step]); dv[s:s+step].copy_(st, non_blocking=True)
    return dst

one_block = R._copy_chunked
def variant(name):
    if name == "unchunked":
        return lambda d, dev: R._async_h2d(d, dev, None, None, chunk_bytes=None)
    def f(d, dev):
        R._copy_chunked = per_chunk_blocks if name == "per_chunk" else one_block
        try: return R._async_h2d(d, dev, None, None, chunk_bytes=R.CHUNK_BYTES)
        finally: R._copy_chunked = one_block
    return f

dev = torch.device("cuda", 0)
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
s.record(); torch.cuda._sleep(1_000_000); e.record(); e.synchronize(); cpm = 1_000_000 / s.elapsed_time(e)
def cases():
    for mb in (16, 64):
        n = (mb << 20) // 4
        yield f"ndarray {mb}MB", lambda n=n: np.arange(n, dtype=np.int32)
        yield f"pageable {mb}MB", lambda n=n: torch.arange(n, dtype=torch.int32)
        yield f"pinned col-slice {mb}MB", lambda n=n: torch.arange(2 * n, dtype=torch.int32).pin_memory().view(-1, 2)[:, 0]
for vname in ("per_chunk", "one_block", "unchunked"):
    fn = variant(vname)
    for cname, make in cases():
        ms = []
        for _ in range(3):
            p = make(); fn(p, dev); torch.cuda.synchronize()
            torch.cuda._sleep(int(100 * cpm)); t0 = time.perf_counter(); fn(p, dev); ms.append((time.perf_counter() - t0) * 1e3); torch.cuda.synchronize()
        print(f"{vname:10s} {cname:24s} host ms behind busy: " + " ".join(f"{m:6.1f}" for m in ms), flush=True)
    for mb in (64, 256):
        d = torch.arange((mb << 20) // 4, dtype=torch.int32)
        for _ in range(3): fn(d, dev)
        torch.cuda.synchronize(); calls = max(4, 2048 // mb); t0 = time.perf_counter()
        for _ in range(calls): fn(d, dev)
        torch.cuda.synchronize(); print(f"{vname:10s} throughput {mb}MB: {calls * (mb << 20) / (time.perf_counter() - t0) / 1e9:5.1f} GB/s", flush=True)
