"""Where a staged call's host time goes behind a busy stream, step by step: the reference's steps beside vLLM's (a GPU lab probe).

Why: on an H100 (docs/performance.md) the reference took 0.18 / 0.26 / 0.49 ms for 1 / 4 / 16 MiB
pageable tensors behind 100 ms of queued work, vLLM's helper 0.09 / 0.14 / 0.30 ms, with spreads
apart. Each sample here queues ``busy_ms`` of spin work, then times every step of one call with
``time.perf_counter_ns``:

- reference: ``_fast_path`` (its checks and ``is_pinned()``, then None above 256 KiB), ``_prepare``,
  ``_zero_copy_ok`` (a second ``is_pinned()``), the pool's ``take``, the staging view, the host copy,
  ``mark_start``, the DMA (``.to(copy=True)``) and ``give_back``;
- vLLM: ``is_pinned()``, ``torch.empty(pin_memory=True)``, ``copy_``, ``.to(non_blocking=True)``.

Prints the median of ``reps`` samples per step (us), and the same idle. Usage (a CUDA machine, the kit
installed): ``OMP_NUM_THREADS=16 python3 dev/busy_path_probe.py``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import torch

from h2d_contracts.h2d_impl import _staging
from h2d_contracts.h2d_impl import h2d as _h2d


def cycles_per_ms(device: torch.device) -> float:
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    torch.cuda._sleep(1_000_000)
    e.record()
    e.synchronize()
    return 1_000_000 / s.elapsed_time(e)


def reference_steps(data: torch.Tensor, device: torch.device) -> dict[str, float]:
    t = [time.perf_counter_ns()]
    _h2d._fast_path(data, device, None, _staging.SMALL_MAX_BYTES)
    t.append(time.perf_counter_ns())
    source, dtype, target = _h2d._prepare(data, device, None, None, cpu_only=False)
    t.append(time.perf_counter_ns())
    _h2d._zero_copy_ok(data, source, dtype)
    t.append(time.perf_counter_ns())
    nbytes = source.numel() * dtype.itemsize
    block_bytes = max(_staging.MIN_BLOCK_BYTES, 1 << (nbytes - 1).bit_length())
    pool = _staging.pool_for(target, block_bytes, True, small=False)
    with pool.lock:
        block = pool.take(nbytes)
        t.append(time.perf_counter_ns())
        staging = block.tensor(source.shape, dtype)
        t.append(time.perf_counter_ns())
        _h2d._host_copy(staging, source)
        t.append(time.perf_counter_ns())
        pool.mark_start(block)
        t.append(time.perf_counter_ns())
        _h2d._dma(staging, target, None)
        t.append(time.perf_counter_ns())
        pool.give_back(block)
        t.append(time.perf_counter_ns())
    names = ["fast_path", "prepare", "zero_copy_ok", "take", "view", "host_copy", "mark_start", "dma", "give_back"]
    return {n: (b - a) / 1e3 for n, a, b in zip(names, t, t[1:])}


def vllm_steps(data: torch.Tensor, device: torch.device) -> dict[str, float]:
    t = [time.perf_counter_ns()]
    data.is_pinned()
    t.append(time.perf_counter_ns())
    pinned = torch.empty(data.shape, dtype=data.dtype, device="cpu", pin_memory=True)
    t.append(time.perf_counter_ns())
    pinned.copy_(data)
    t.append(time.perf_counter_ns())
    pinned.to(device=device, non_blocking=True)
    t.append(time.perf_counter_ns())
    names = ["is_pinned", "empty_pinned", "copy_", "to"]
    return {n: (b - a) / 1e3 for n, a, b in zip(names, t, t[1:])}


def layout_steps(data: torch.Tensor, device: torch.device) -> dict[str, float]:
    """The reference's path for a dense permuted pinned tensor (``.t()``), step by step."""
    t = [time.perf_counter_ns()]
    _h2d._fast_path(data, device, None, _staging.SMALL_MAX_BYTES)
    t.append(time.perf_counter_ns())
    source, dtype, target = _h2d._prepare(data, device, None, None, cpu_only=False)
    t.append(time.perf_counter_ns())
    _h2d._zero_copy_ok(data, source, dtype)
    t.append(time.perf_counter_ns())
    _h2d._dense(source)
    t.append(time.perf_counter_ns())
    moved = source.to(target, non_blocking=True)
    t.append(time.perf_counter_ns())
    moved.contiguous()
    t.append(time.perf_counter_ns())
    names = ["fast_path", "prepare", "zero_copy_ok", "dense", "to", "contiguous"]
    return {n: (b - a) / 1e3 for n, a, b in zip(names, t, t[1:])}


def vllm_layout_steps(data: torch.Tensor, device: torch.device) -> dict[str, float]:
    t = [time.perf_counter_ns()]
    data.is_pinned()
    t.append(time.perf_counter_ns())
    moved = data.to(device=device, non_blocking=True)
    t.append(time.perf_counter_ns())
    moved.contiguous()
    t.append(time.perf_counter_ns())
    names = ["is_pinned", "to", "contiguous"]
    return {n: (b - a) / 1e3 for n, a, b in zip(names, t, t[1:])}


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


def main() -> None:
    device = torch.device("cuda", torch.cuda.current_device())
    cpm = cycles_per_ms(device)
    for nbytes in (1 << 20, 4 << 20, 16 << 20):
        data = torch.arange(nbytes // 4, dtype=torch.int32)
        for _ in range(3):  # warm: the pool and the caching host allocator hold blocks of the size
            reference_steps(data, device)
            vllm_steps(data, device)
        torch.cuda.synchronize()
        for busy in (0.0, 100.0):
            for name, fn in (("reference", reference_steps), ("vllm", vllm_steps)):
                med = sampled(lambda fn=fn, data=data: fn(data, device), busy, cpm, 9)
                cells = " ".join(f"{k}={v:.1f}" for k, v in med.items())
                print(f"{nbytes >> 20:3d} MiB busy={busy:5.0f} ms {name:9s} us: {cells}", flush=True)
    base = torch.arange(2048 * 2048, dtype=torch.float32).reshape(2048, 2048).pin_memory().t()
    for _ in range(3):
        layout_steps(base, device)
        vllm_layout_steps(base, device)
    for busy in (0.0, 100.0):
        for name, fn in (("reference", layout_steps), ("vllm+contig", vllm_layout_steps)):
            med = sampled(lambda fn=fn: fn(base, device), busy, cpm, 9)
            cells = " ".join(f"{k}={v:.1f}" for k, v in med.items())
            print(f"pinned .t() 16 MiB busy={busy:5.0f} ms {name:11s} us: {cells}", flush=True)


if __name__ == "__main__":
    main()
