"""Candidate changes for issue 12's improvable rows, measured side by side before one is built (needs a GPU).

At 8cdcd4f the bench (reports/bench/2026-12-01_h200_8cdcd4f/) left these rows short of vLLM:
lists of 1 and 16 elements (1.41x / 1.27x host time), 1-4 MiB behind a busy stream (2.0-2.2x),
1 MiB steady throughput (0.76x; its host-copy column read 0.2 GB/s: one 8 ms copy among five)
and a pinned channels-last tensor behind a busy stream (1.9x). This script measures, in one
process and interleaved round by round (so drift hits every candidate alike):

1. small calls, idle stream (us, median over rounds of the per-round median): the reference
   as checked out (the flat-list and numpy fast paths of _host.py), vLLM 0.33.0's function;
2. 1 MiB and 4 MiB pageable int32: host ms behind 100 ms of queued work, host us on an idle
   stream and back-to-back GB/s, for the reference with its host copy serial up to
   ``SERIAL_COPY_MAX_BYTES`` = 256 KiB (as is), 1 MiB and 4 MiB, and for vLLM;
3. the 16 MiB pinned channels-last tensor: the reference's device reorder
   (``moved.contiguous()``) against ``torch.empty(...).copy_(moved)`` and a permute to the
   storage order, DMA, permute back; ``.to`` alone (strides kept) for scale.

    python bench/probe_variants.py --out FILE.md
"""

from __future__ import annotations

import argparse
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


def vllm_fn() -> Callable[..., torch.Tensor] | None:
    try:
        from vllm.utils.torch_utils import async_tensor_h2d  # type: ignore

        return async_tensor_h2d
    except Exception as exc:  # noqa: BLE001 - reported in the output
        print("vllm not importable:", exc)
        return None


def idle_us(fn: Callable[[], Any], iters: int) -> float:
    for _ in range(50):
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
    return statistics.median(times) / 1e3


def busy_ms(fn: Callable[[], Any], cpm: float) -> float:
    torch.cuda.synchronize()
    torch.cuda._sleep(int(100 * cpm))
    t0 = time.perf_counter_ns()
    fn()
    t = (time.perf_counter_ns() - t0) / 1e6
    torch.cuda.synchronize()
    return t


def gbps(fn: Callable[[], Any], nbytes: int, calls: int) -> float:
    for _ in range(8):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    keep = [fn() for _ in range(4)]
    for _ in range(calls - 4):
        fn()
    torch.cuda.synchronize()
    del keep
    return calls * nbytes / (time.perf_counter() - t0) / 1e9


def with_serial(limit: int, fn: Callable[[], Any]) -> Callable[[], Any]:
    def call() -> Any:
        old = _h2d.SERIAL_COPY_MAX_BYTES
        _h2d.SERIAL_COPY_MAX_BYTES = limit
        try:
            return fn()
        finally:
            _h2d.SERIAL_COPY_MAX_BYTES = old
    return call


def table(title: str, unit: str, results: dict[str, dict[str, list[float]]]) -> list[str]:
    cols = list(next(iter(results.values())).keys())
    L = [f"### {title} ({unit}: median over rounds; [min-max])", "", "| case | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for case, row in results.items():
        L.append(f"| {case} | " + " | ".join(f"{statistics.median(v):.3g} [{min(v):.3g}-{max(v):.3g}]" for v in row.values()) + " |")
    return L + [""]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/probe_variants.md")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); torch.cuda._sleep(1_000_000); e.record(); e.synchronize()
    cpm = 1_000_000 / s.elapsed_time(e)
    vllm = vllm_fn()
    ref = h2d_impl.async_tensor_h2d
    L = [f"# Issue 12 candidates, {torch.cuda.get_device_name(0)}, torch {torch.__version__}, numpy {np.__version__}, "
         f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}, {args.rounds} rounds", ""]

    # 1. small calls
    small: dict[str, dict[str, list[float]]] = {}
    inputs = {"list n=1": [7], "list n=16": list(range(16)), "ndarray n=16": np.arange(16, dtype=np.int32),
              "tensor n=16": torch.arange(16, dtype=torch.int32), "ndarray n=65536": np.arange(65536, dtype=np.int32)}
    for r in range(args.rounds):
        for label, data in inputs.items():
            row = small.setdefault(label, {})
            row.setdefault("reference", []).append(idle_us(lambda: ref(data, DEV), 1000))
            if vllm is not None:
                row.setdefault("vllm", []).append(idle_us(lambda: vllm(data, DEV), 1000))
        print("small round", r, flush=True)
    L += table("1. small calls, idle stream", "host us", small)

    # 2. 1 and 4 MiB
    for nbytes in (1 << 20, 4 << 20):
        data = torch.arange(nbytes // 4, dtype=torch.int32)
        cases = {f"reference serial<={lim >> 10} KiB": with_serial(lim, lambda: ref(data, DEV)) for lim in (256 << 10, 1 << 20, 4 << 20)}
        if vllm is not None:
            cases["vllm"] = lambda: vllm(data, DEV)
        cases["pinned empty+copy_+to"] = lambda: torch.empty(data.shape, dtype=data.dtype, pin_memory=True).copy_(data).to(DEV, non_blocking=True)
        res: dict[str, dict[str, list[float]]] = {c: {} for c in cases}
        for r in range(args.rounds):
            for c, fn in cases.items():
                res[c].setdefault("busy ms", []).append(busy_ms(fn, cpm))
                res[c].setdefault("idle us", []).append(idle_us(fn, 200))
                res[c].setdefault("GB/s", []).append(gbps(fn, nbytes, max(16, (256 << 20) // nbytes)))
            print(nbytes, "round", r, flush=True)
        L += table(f"2. {nbytes >> 20} MiB pageable int32", "busy ms / idle us / GB/s", res)

    # 3. channels-last
    cl = torch.arange(8 * 64 * 128 * 64, dtype=torch.float32).reshape(8, 64, 128, 64).contiguous(memory_format=torch.channels_last).pin_memory()
    order = sorted(range(cl.dim()), key=lambda d: -cl.stride(d))
    inverse = [order.index(d) for d in range(cl.dim())]
    expect = cl.to(DEV).contiguous()
    variants = {
        "reference": lambda: ref(cl, DEV),
        "to + contiguous": lambda: cl.to(DEV, non_blocking=True).contiguous(),
        "to + empty.copy_": lambda: torch.empty(cl.shape, dtype=cl.dtype, device=DEV).copy_(cl.to(DEV, non_blocking=True)),
        "permute, to, permute back": lambda: cl.permute(order).to(DEV, non_blocking=True).permute(inverse).contiguous(),
        ".to alone (strides kept)": lambda: cl.to(DEV, non_blocking=True),
    }
    if vllm is not None:
        variants["vllm"] = lambda: vllm(cl, DEV)
    for name, fn in variants.items():
        got = fn()
        torch.cuda.synchronize()
        if not torch.equal(got, expect):
            L.append(f"- {name}: WRONG VALUES")
    res = {c: {} for c in variants}
    for r in range(args.rounds):
        for c, fn in variants.items():
            res[c].setdefault("busy ms", []).append(busy_ms(fn, cpm))
            res[c].setdefault("idle us", []).append(idle_us(fn, 200))
        print("layout round", r, flush=True)
    L += table("3. pinned channels-last 8x64x128x64 f32", "busy ms / idle us", res)
    L += ["staging pools: " + repr(h2d_impl._staging.staging_stats())]
    with open(args.out, "w") as fh:
        fh.write("\n".join(L) + "\n")
    print("\n".join(L))
    return 0


if __name__ == "__main__":
    sys.exit(main())
