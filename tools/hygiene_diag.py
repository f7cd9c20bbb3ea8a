"""Why the hygiene contract's quiescent readings grow by one or two pinned blocks on a passing reference (H200, c5e2a22).

Runs the contract's own loop (contracts.reliability.check_resource_hygiene) on the reference
with four ways of reading pinned bytes at quiescence and prints, per way, the warm-up reading
and every later reading above it:

- ``contract``: the contract's reading (sync, a one-byte pinned probe, allocated_bytes.current);
- ``gc``: gc.collect() first (garbage awaiting the cyclic collector still references blocks);
- ``two-probes``: two probe allocations (events processed twice);
- ``gc+two-probes``.

Usage (GPU): python3 tools/hygiene_diag.py [calls]
"""

from __future__ import annotations

import gc
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from h2d_contracts.contracts import load_target  # noqa: E402
from h2d_contracts.contracts import reliability as rel  # noqa: E402


def reader(collect: bool, probes: int):
    def measure(device: torch.device) -> tuple[int, int]:
        if collect:
            gc.collect()
        torch.cuda.synchronize(device)
        held = [torch.empty(1, dtype=torch.uint8, pin_memory=True) for _ in range(probes)]
        host = int(torch.cuda.host_memory_stats().get("allocated_bytes.current", 0))
        dev = int(torch.cuda.memory_allocated(device))
        del held
        return host, dev

    return measure


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 30_000
    device = torch.device("cuda", torch.cuda.current_device())
    target = load_target("reference")
    print("host_memory_stats keys:", sorted(k for k in torch.cuda.host_memory_stats() if "current" in k))
    for name, collect, probes in (("contract", False, 1), ("gc", True, 1), ("two-probes", False, 2), ("gc+two-probes", True, 2)):
        readings: list[tuple[int, int]] = []

        def measure(dev: torch.device, _m=reader(collect, probes)) -> tuple[int, int]:
            r = _m(dev)
            readings.append(r)
            return r

        try:
            rel.check_resource_hygiene(target, device, calls=calls, warmup=10_000, measure=measure)
            verdict = "pass"
        except AssertionError as exc:
            verdict = "FAIL: " + str(exc).splitlines()[0][:160]
        warm = readings[0][0]
        above = [(i, h - warm) for i, (h, _) in enumerate(readings[1:], 1) if h > warm]
        below = sum(1 for h, _ in readings[1:] if h < warm)
        print(f"{name:14s} warm {warm} B; {len(readings) - 1} later readings: {len(above)} above (first: {above[:5]}), {below} below; {verdict}", flush=True)


if __name__ == "__main__":
    main()
