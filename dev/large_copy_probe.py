"""Where a large staged copy's time goes, per call: the reference beside the simplest staged loops (a GPU lab probe).

Why: on the H200 (docs/performance.md) the reference's throughput at 256 MiB and 1 GiB was 28 GB/s
against vLLM's 33 in the same run, with a 64 MiB row at 50. This runs ``calls`` back-to-back calls
of each pattern per size and prints, per pattern, the GB/s of the whole run and each call's host
milliseconds, so the slow call (a wait, an allocation, the host copy) shows by itself:

- ``reference``: ``h2d_impl.async_tensor_h2d`` (its pool's counters after the run);
- ``alloc_pinned``: ``torch.empty(pin_memory=True).copy_(t).to(non_blocking=True)``;
- ``ring2`` / ``ring4``: 2 or 4 preallocated pinned buffers taken in turn, each reused once the CUDA
  event recorded after its last DMA has completed (no allocation, no validation): the simplest
  staged loop that overlaps one call's host copy with the previous call's DMA;
- ``ring2_serial``: as ``ring2`` with the event waited right after each DMA (no overlap).

Usage (a CUDA machine, the kit installed): ``OMP_NUM_THREADS=16 python3 dev/large_copy_probe.py [--calls 12]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import _staging


def ring(depth: int, data: torch.Tensor, device: torch.device, serial: bool = False) -> Callable[[], torch.Tensor]:
    bufs = [torch.empty_like(data, pin_memory=True) for _ in range(depth)]
    events = [torch.cuda.Event() for _ in range(depth)]
    for b in bufs:
        b.copy_(data)  # pages touched outside the timing
    state = {"i": 0}

    def call() -> torch.Tensor:
        i = state["i"] = (state["i"] + 1) % depth
        events[i].synchronize()
        bufs[i].copy_(data)
        moved = bufs[i].to(device, non_blocking=True)
        events[i].record()
        if serial:
            events[i].synchronize()
        return moved

    return call


def run(name: str, call: Callable[[], torch.Tensor], nbytes: int, calls: int, device: torch.device) -> None:
    for _ in range(3):
        call()
    torch.cuda.synchronize(device)
    host_ms = []
    t0 = time.perf_counter()
    for _ in range(calls):
        c0 = time.perf_counter()
        call()
        host_ms.append((time.perf_counter() - c0) * 1e3)
    torch.cuda.synchronize(device)
    gbps = calls * nbytes / (time.perf_counter() - t0) / 1e9
    print(f"{nbytes >> 20:5d} MiB {name:13s} {gbps:5.1f} GB/s  host ms/call: " + " ".join(f"{x:.1f}" for x in host_ms))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=12)
    ap.add_argument("--sizes-mib", type=int, nargs="+", default=[64, 256, 1024])
    args = ap.parse_args()
    device = torch.device("cuda", torch.cuda.current_device())
    for mib in args.sizes_mib:
        nbytes = mib << 20
        data = torch.arange(nbytes // 4, dtype=torch.int32)
        pats = {
            "reference": lambda d=data: h2d_impl.async_tensor_h2d(d, device),
            "alloc_pinned": lambda d=data: (
                torch.empty(d.shape, dtype=d.dtype, pin_memory=True).copy_(d).to(device, non_blocking=True)
            ),
            "ring2": ring(2, data, device),
            "ring4": ring(4, data, device),
            "ring2_serial": ring(2, data, device, serial=True),
        }
        for name, call in pats.items():
            run(name, call, nbytes, args.calls, device)
        print(f"      pools: {_staging.staging_stats()}")
        del pats
        _staging.empty_staging_cache()
        torch.cuda.synchronize(device)
        torch._C._host_emptyCache()


if __name__ == "__main__":
    main()
