"""Where a staged call's host time goes behind a busy stream, step by step: the reference's steps beside vLLM's (a GPU lab probe).

Why: on an H100 (docs/performance.md) the reference took 0.18 / 0.26 / 0.49 ms for 1 / 4 / 16 MiB
pageable tensors behind 100 ms of queued work, vLLM's helper 0.09 / 0.14 / 0.30 ms, with spreads
apart. Each sample here queues ``busy_ms`` of spin work, then times every step of one call with
``time.perf_counter_ns``, the reference's steps as its fast path takes them:

- a pageable tensor: ``is_pinned()`` (the fast path's one driver call; its other checks are attribute
  reads), ``check_representable``, the pool's ``take``, the staging view, the host copy,
  ``mark_start``, the DMA (``.to(copy=True)``) and ``give_back``; vLLM: ``is_pinned()``,
  ``torch.empty(pin_memory=True)``, ``copy_``, ``.to(non_blocking=True)``;
- a pinned ``.t()``: ``is_pinned()``, ``_dense``, ``.to`` and ``.contiguous()``; vLLM: the same without ``_dense``;
- beside them, the whole call of each (``ref call``: ``async_tensor_h2d``; ``vllm call``: the bench's vLLM pattern),
  sampled the same way: do the steps add up to the call?

The record of 2026-12-05 (docs/performance.md) was taken at 8db1a9a, before the fast path took these
inputs, when the reference's steps were the fast path's checks (then None), ``_prepare`` and a second
``is_pinned()`` before the same pool steps.

Prints the median of 9 samples per step (us), idle and busy. Usage (a CUDA machine, the kit
installed): ``OMP_NUM_THREADS=16 python3 dev/busy_path_probe.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import _staging
from h2d_contracts.h2d_impl import h2d as _h2d

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from h2d_bench import cycles_per_ms, patterns  # the bench's own calibration of the spin kernel, its patterns


class Laps:
    """Microseconds between consecutive :meth:`lap` calls, by the name of the step that just ended."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self._last = time.perf_counter_ns()

    def lap(self, name: str) -> None:
        now = time.perf_counter_ns()
        self.times[name] = (now - self._last) / 1e3
        self._last = now


def reference_steps(data: torch.Tensor, device: torch.device) -> dict[str, float]:
    laps = Laps()
    data.is_pinned()
    laps.lap("is_pinned")
    _h2d.check_representable(data, data.dtype)
    laps.lap("check")
    nbytes = data.numel() * data.element_size()
    pool = _staging.pool_for(device, max(_staging.MIN_BLOCK_BYTES, 1 << (nbytes - 1).bit_length()), True, small=False)
    with pool.lock:
        block = pool.take(nbytes)
        laps.lap("take")
        staging = block.tensor(data.shape, data.dtype)
        laps.lap("view")
        _h2d._host_copy(staging, data)
        laps.lap("host_copy")
        pool.mark_start(block)
        laps.lap("mark_start")
        _h2d._dma(staging, device, None)
        laps.lap("dma")
        pool.give_back(block)
        laps.lap("give_back")
    return laps.times


def vllm_steps(data: torch.Tensor, device: torch.device) -> dict[str, float]:
    laps = Laps()
    data.is_pinned()
    laps.lap("is_pinned")
    pinned = torch.empty(data.shape, dtype=data.dtype, device="cpu", pin_memory=True)
    laps.lap("empty_pinned")
    pinned.copy_(data)
    laps.lap("copy_")
    pinned.to(device=device, non_blocking=True)
    laps.lap("to")
    return laps.times


def layout_steps(data: torch.Tensor, device: torch.device, *, reference: bool = True) -> dict[str, float]:
    """A dense permuted pinned tensor (``.t()``): the reference's zero-copy steps, or vLLM's plus ``.contiguous()``."""
    laps = Laps()
    data.is_pinned()
    laps.lap("is_pinned")
    if reference:
        _h2d._dense(data)
        laps.lap("dense")
    moved = data.to(device, non_blocking=True)
    laps.lap("to")
    moved.contiguous()
    laps.lap("contiguous")
    return laps.times


def whole_call(call: Callable[[], object]) -> dict[str, float]:
    """One whole call, timed as the bench's section (b) times it (the result dropped after the timing)."""
    t0 = time.perf_counter_ns()
    result = call()
    us = (time.perf_counter_ns() - t0) / 1e3
    del result
    return {"call": us}


def sampled(steps: Callable[[], dict[str, float]], busy: float, cpm: float, reps: int) -> dict[str, float]:
    got: dict[str, list[float]] = {}
    for _ in range(reps):
        torch.cuda.synchronize()
        if busy:
            torch.cuda._sleep(int(busy * cpm))
        for k, v in steps().items():
            got.setdefault(k, []).append(v)
        torch.cuda.synchronize()
    out = {k: statistics.median(v) for k, v in got.items()}
    out["total"] = sum(out.values())
    return out


def report(label: str, calls: dict[str, Callable[[], dict[str, float]]], cpm: float) -> None:
    """Warm each of ``calls`` (the pool and the caching host allocator then hold blocks of the size), then print the
    median steps of each, idle and behind 100 ms of queued work."""
    for call in calls.values():
        for _ in range(3):
            call()
    torch.cuda.synchronize()
    for busy in (0.0, 100.0):
        for name, call in calls.items():
            cells = " ".join(f"{k}={v:.1f}" for k, v in sampled(call, busy, cpm, 9).items())
            print(f"{label} busy={busy:5.0f} ms {name:11s} us: {cells}", flush=True)


def main() -> None:
    device = torch.device("cuda", torch.cuda.current_device())
    cpm = cycles_per_ms(device)
    pats = patterns()
    for nbytes in (1 << 20, 4 << 20, 16 << 20):
        data = torch.arange(nbytes // 4, dtype=torch.int32)
        calls = {"reference": lambda d=data: reference_steps(d, device), "vllm": lambda d=data: vllm_steps(d, device)}
        calls["ref call"] = lambda d=data: whole_call(lambda: h2d_impl.async_tensor_h2d(d, device))
        if "vllm" in pats:
            calls["vllm call"] = lambda d=data: whole_call(lambda: pats["vllm"](d, device))
        report(f"{nbytes >> 20:3d} MiB", calls, cpm)
    base = torch.arange(2048 * 2048, dtype=torch.float32).reshape(2048, 2048).pin_memory().t()
    calls = {
        "reference": lambda: layout_steps(base, device),
        "vllm+contig": lambda: layout_steps(base, device, reference=False),
    }
    report("pinned .t() 16 MiB", calls, cpm)


if __name__ == "__main__":
    main()
