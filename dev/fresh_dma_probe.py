"""Does a pinned buffer the host has just written DMA slower, and does the way it was written matter? (a GPU lab probe)

Why: on the H200 (docs/performance.md, ``dev/pool_depth_probe.py``'s ``fresh`` line) one DMA from a pinned buffer
right after ``copy_`` wrote it ran at 19-20 GB/s at 1-4 MiB and 32 at 16 MiB, against 31-36 and 50 for the same
buffer again. Every staged call DMAs a buffer it has just written, so if that penalty is the hardware's, it bounds
target 3 (issue 24) at 4 and 16 MiB. A likely cause is the written lines still dirty in the CPU's caches, which the
DMA's reads must snoop; stores that bypass the caches (non-temporal: glibc's ``memmove`` above its
``x86_non_temporal_threshold``) would then avoid it. For each size and each way of writing, five rounds of: write the
buffer from pageable ``data`` (host GB/s, wall clock), then one DMA of it to the device (GB/s, CUDA events), then the
same DMA again; medians printed. The ways:

- ``copy_``: ``pinned.copy_(data)``, torch's threaded copy (what the reference and vLLM do);
- ``memmove``: one ``ctypes.memmove`` of the whole buffer (glibc; non-temporal stores above the threshold);
- ``memmove xT``: T threads each ``ctypes.memmove`` a contiguous share (ctypes drops the GIL for the call);
- ``copy_ + evict``: ``copy_``, then the host reads a 256 MiB pageable buffer (pushing the lines out of the caches).

Run it twice to see the threshold's role: as is, and with
``GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0x4000`` (every share above 16 KiB written non-temporally).
With ``OMP_WAIT_POLICY=PASSIVE`` torch's OpenMP threads sleep between its copies instead of spinning on the cores
the threaded memmoves need (on the H200 the threaded memmoves beside spinning threads wrote at 0.3-15 GB/s).

Then, with ``--pipeline-calls N`` (a CUDA machine), the question that decides a staging design: per size and way,
N back-to-back staged calls through a ring of ``--ring`` preallocated pinned buffers (each: wait for the buffer's
last DMA, write it from ``data``, one non_blocking DMA to the device, an event), GB/s over the N calls, three
rounds: the most a staged copy written that way sustains, the write and its DMA overlapped.

Usage (a CUDA machine, the kit installed): ``OMP_NUM_THREADS=16 python3 dev/fresh_dma_probe.py``; without CUDA it
prints the host rates only.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from h2d_bench import one_dma_gbps  # the bench's one timed DMA


def memmove_writer(threads: int, pool: ThreadPoolExecutor | None) -> Callable[[torch.Tensor, torch.Tensor], None]:
    """``dst[:] = src`` for two contiguous tensors of the same size in bytes, by ``threads`` ``ctypes.memmove`` calls
    of contiguous shares (64-byte aligned, the last takes the rest)."""

    def write(dst: torch.Tensor, src: torch.Tensor) -> None:
        n = src.numel() * src.element_size()
        d, s = dst.data_ptr(), src.data_ptr()
        if threads == 1 or pool is None:
            ctypes.memmove(d, s, n)
            return
        share = (n // threads) & ~63
        bounds = [(i * share, n if i == threads - 1 else (i + 1) * share) for i in range(threads)]
        list(pool.map(lambda b: ctypes.memmove(d + b[0], s + b[0], b[1] - b[0]), bounds))

    return write


def pipelined_gbps(
    write: Callable[[torch.Tensor, torch.Tensor], None], data: torch.Tensor, device: torch.device, ring: int, calls: int
) -> float:
    """GB/s of ``calls`` staged calls of ``data`` through ``ring`` pinned buffers written by ``write`` (see above)."""
    bufs = [torch.empty_like(data, pin_memory=True) for _ in range(ring)]
    dsts = [torch.empty_like(data, device=device) for _ in range(ring)]
    done: list[torch.cuda.Event | None] = [None] * ring
    for b in bufs:
        b.zero_()  # first touch outside the timing; not the data, so a writer that wrote nothing fails the check

    def call(i: int) -> None:
        k = i % ring
        event = done[k]
        if event is not None:
            event.synchronize()
        write(bufs[k], data)
        dsts[k].copy_(bufs[k], non_blocking=True)
        event = torch.cuda.Event()
        event.record()
        done[k] = event

    for i in range(2 * ring):
        call(i)
    torch.cuda.synchronize(device)
    t0 = time.perf_counter()
    for i in range(calls):
        call(i)
    torch.cuda.synchronize(device)
    gbps = calls * data.numel() * data.element_size() / (time.perf_counter() - t0) / 1e9
    if not torch.equal(dsts[(calls - 1) % ring].cpu(), data):
        raise RuntimeError("the last staged copy differs from the data")
    return gbps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes-mib", type=int, nargs="+", default=[1, 4, 16, 64])
    ap.add_argument("--threads", type=int, nargs="+", default=[4, 8])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pipeline-calls", type=int, default=0, help="staged calls per pipelined sample (0: none)")
    ap.add_argument("--ring", type=int, default=3)
    args = ap.parse_args()
    cuda = torch.cuda.is_available()
    device = torch.device("cuda", torch.cuda.current_device()) if cuda else None
    print(
        f"torch {torch.__version__} threads {torch.get_num_threads()} GLIBC_TUNABLES={os.environ.get('GLIBC_TUNABLES', '')!r}"
        + (f" {torch.cuda.get_device_name()}" if cuda else " (no CUDA: host rates only)"),
        flush=True,
    )
    pools = {t: ThreadPoolExecutor(t) for t in args.threads}
    evict_src = torch.ones(256 << 20, dtype=torch.uint8)

    def copy_evict(dst: torch.Tensor, src: torch.Tensor) -> None:
        dst.copy_(src)
        evict_src.max()  # a read of 256 MiB: this way's host rate includes it

    ways: dict[str, Callable[[torch.Tensor, torch.Tensor], None]] = {
        "copy_": lambda dst, src: dst.copy_(src),
        "memmove": memmove_writer(1, None),
        **{f"memmove x{t}": memmove_writer(t, pools[t]) for t in args.threads},
        "copy_ + evict": copy_evict,
    }
    for mib in args.sizes_mib:
        nbytes = mib << 20
        data = torch.arange(nbytes // 4, dtype=torch.int32)
        pinned = torch.empty_like(data, pin_memory=cuda)
        pinned.copy_(data)  # first touch outside the timing
        dst = torch.empty_like(data, device=device) if cuda else None
        for name, write in ways.items():
            host, fresh, again = [], [], []
            for _ in range(args.rounds):
                data.add_(1)  # new values each round: the DMA's bytes are this round's
                t0 = time.perf_counter()
                write(pinned, data)
                host.append(nbytes / (time.perf_counter() - t0) / 1e9)
                if dst is None:
                    continue
                fresh.append(one_dma_gbps(dst, pinned))
                again.append(one_dma_gbps(dst, pinned))
                if not torch.equal(dst.cpu(), data):
                    raise RuntimeError(f"{name} at {mib} MiB: the device copy differs from the data")
            line = f"fresh {mib:4d} MiB {name:14s} host GB/s {statistics.median(host):6.1f}"
            if dst is not None:
                line += f"  DMA GB/s just written {statistics.median(fresh):5.1f} again {statistics.median(again):5.1f}"
                line += "  (just written " + " ".join(f"{g:.1f}" for g in fresh) + ")"
            print(line, flush=True)
    if device is not None and args.pipeline_calls:
        for mib in args.sizes_mib:
            data = torch.arange((mib << 20) // 4, dtype=torch.int32)
            for name, write in ways.items():
                if "evict" in name:
                    continue
                rates = [pipelined_gbps(write, data, device, args.ring, args.pipeline_calls) for _ in range(3)]
                print(
                    f"pipeline {mib:4d} MiB {name:14s} ring{args.ring} x{args.pipeline_calls} GB/s "
                    + " ".join(f"{g:5.1f}" for g in rates),
                    flush=True,
                )
    for p in pools.values():
        p.shutdown()


if __name__ == "__main__":
    main()
