"""vLLM's GPU-only findings, reproduced with vLLM and torch alone (no kit code), on a CUDA machine.

Usage: python3 tools/vllm_gpu_findings.py   (vLLM importable; prints a Markdown table)

Each row: the finding, the reproduction's outcome with vLLM's ``async_tensor_h2d`` and,
beside it, with the reference ``h2d_impl`` (the same lines). Run by
``tools/gpu_runner.sh vllm``; the outcome is committed under reports/vllm/.
"""

from __future__ import annotations

import time

import torch


def _busy(ms: float) -> torch.cuda.Event:
    """Queue ~ms of spin work on the current stream (cycles calibrated once with events)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(100_000)
    end.record()
    end.synchronize()
    per_ms = 100_000 / max(start.elapsed_time(end), 1e-3)
    torch.cuda._sleep(int(per_ms * ms))
    done = torch.cuda.Event()
    done.record()
    return done


def strided_pinned_view_reads_pageable(fn) -> str:
    src = torch.arange(1 << 22, dtype=torch.int32).pin_memory().view(-1, 2)[:, 0]
    fn(src, device="cuda")  # warm-up
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn(src, device="cuda")
        torch.cuda.synchronize()
    kinds = sorted({e.name for e in prof.events() if "Memcpy HtoD" in e.name})
    return ", ".join(kinds) or "no HtoD memcpy seen"


def converted_pinned_input_read_after_return(fn) -> str:
    src = (torch.arange(1 << 20) % 3 == 0).to(torch.uint8).pin_memory()
    want = src.to(torch.bool)
    torch.cuda.synchronize()
    _busy(50)
    result = fn(src, device="cuda", dtype=torch.bool)
    src.fill_(0)  # the caller reuses its pinned buffer right after the call
    torch.cuda.synchronize()
    wrong = int((result.cpu() != want).sum())
    return f"{wrong} of {want.numel()} elements changed by overwriting the source after the call"


def pageable_tensor_blocks(fn) -> str:
    src = torch.arange(1 << 22, dtype=torch.int32)  # 16 MiB, pageable
    fn(src, device="cuda")
    torch.cuda.synchronize()
    done = _busy(100)
    t0 = time.perf_counter()
    fn(src, device="cuda")
    ms = (time.perf_counter() - t0) * 1e3
    busy = not done.query()
    torch.cuda.synchronize()
    return f"returned after {ms:.1f} ms behind 100 ms of queued work (stream {'still busy' if busy else 'already idle'})"


def strided_pinned_view_into_out_blocks(fn) -> str:
    """The kit's falsifying call of non-blocking (H200, records of 370e4cb and the run of 14a731f)."""
    src = torch.arange(1 << 25, dtype=torch.int32).pin_memory().view(-1, 2)[:, 0]  # 16 Mi elements, stride 2
    out = torch.empty(src.shape, dtype=torch.int32, device="cuda")
    fn(src, out=out)
    torch.cuda.synchronize()
    done = _busy(100)
    t0 = time.perf_counter()
    fn(src, out=out)
    ms = (time.perf_counter() - t0) * 1e3
    busy = not done.query()
    torch.cuda.synchronize()
    return f"returned after {ms:.1f} ms behind 100 ms of queued work (stream {'still busy' if busy else 'already idle'})"


def converted_pinned_table_row_read_after_return(fn) -> str:
    """The kit's falsifying call of snapshot (table row uint8-as-bool, run of 14a731f): device=torch.device, 64 Ki elements."""
    import numpy as np

    src = torch.from_numpy(np.resize(np.array([1, 0, 0], dtype=np.uint8), 65536)).pin_memory()
    want = src.to(torch.bool)
    torch.cuda.synchronize()
    _busy(50)
    result = fn(src, device=torch.device("cuda:0"), dtype=torch.bool)
    src.fill_(0)
    torch.cuda.synchronize()
    wrong = int((result.cpu() != want).sum())
    return f"{wrong} of {want.numel()} elements changed by overwriting the source after the call"


def main() -> None:
    from h2d_contracts import h2d_impl
    from vllm.utils.torch_utils import async_tensor_h2d as vllm_h2d

    import vllm

    rows = [
        ("staging: a strided pinned view (16 MiB column slice)", strided_pinned_view_reads_pageable),
        ("snapshot: pinned uint8 with dtype=torch.bool, source overwritten after the call", converted_pinned_input_read_after_return),
        ("non-blocking: 16 MiB pageable tensor", pageable_tensor_blocks),
        ("non-blocking: the kit's call, a 16 Mi-element pinned column slice with out=", strided_pinned_view_into_out_blocks),
        ("snapshot: the kit's call, 64 Ki pinned uint8 [1, 0, 0, ...] with device=torch.device('cuda:0'), dtype=torch.bool", converted_pinned_table_row_read_after_return),
    ]
    print(f"vLLM {vllm.__version__}, torch {torch.__version__}, {torch.cuda.get_device_name()}")
    print()
    print("| finding | vLLM | reference (h2d_impl) |")
    print("|---|---|---|")
    for name, fn in rows:
        print(f"| {name} | {fn(vllm_h2d)} | {fn(h2d_impl.async_tensor_h2d)} |", flush=True)


if __name__ == "__main__":
    main()
