"""Side-by-side H2D benchmark: every pattern measured in one run on one GPU.

Patterns (each a function ``(payload, device) -> device tensor``):

- ``reference``: ``h2d_impl.async_tensor_h2d`` (the event-tracked staging pool: slices of a
  shared chunk up to 256 KiB, 4 MiB pieces above; ``async_tensor_h2d_pipelined`` is now an
  alias of it)
- ``naive``: ``tensor.to(device, non_blocking=True)`` from pageable memory
- ``pin_memory``: ``tensor.pin_memory().to(device, non_blocking=True)``
- ``alloc_pinned``: ``torch.empty(..., pin_memory=True).copy_(t).to(device, non_blocking=True)``
- ``buffer_floor``: a preallocated pinned ``CpuGpuBuffer``: ``copy_to_gpu(n)`` (data already in ``.cpu``)
- ``staged_floor``: the minimal staged call (:func:`staged_call`): the host data into new pinned memory,
  ``torch.empty`` on the device, one non-blocking copy; the floor of the hot-path target (issue 24, item 1)
- ``vllm``: vLLM's ``async_tensor_h2d`` when vllm is importable; in (d) also ``vllm_contiguous``,
  ``vllm(...).contiguous()``: what a vLLM user adds to get the reference's contiguous result (like with like)

Measurements (host time with ``time.perf_counter_ns``, device time with CUDA events,
warm-up first, medians over many runs; the patterns of a row interleaved round by round, and
each row's spread, min / median / max over its rounds, kept in ``row["spread"]``):

- (a) host time per call on an idle stream, lists / arrays / pageable tensors / pinned tensors of 1..65,536 elements;
- (b) host time per call with ~100 ms of spin work queued on the stream, 4 KB..256 MB;
- (c) steady-state end-to-end throughput, 1 MB..1 GB, against the pinned DMA
  bandwidth measured in the same run (the physical limit on that link);
- (d) layouts that need no host work: pinned transposed / channels-last / column-slice
  tensors, host time idle and behind the busy stream;
- (e) the first call of each size behind the busy stream with a cold caching host
  allocator and staging pool (``empty_staging_cache()`` and ``torch._C._host_emptyCache()``
  before it), against a plain host-to-pinned
  copy of the same bytes into a preallocated pinned buffer (the bound: 1 ms + 1.2x
  that copy; docs/performance.md);
- a check of the performance criteria row by row (``criteria`` in results.json and .md).

Usage: python3 bench/h2d_bench.py --out DIR [--quick]
Writes into DIR results.json, results.md (tables with ratios), h2d_bench.png and profile.txt.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

# the verdicts and the report, pure functions of the rows (bench/ is sys.path[0] when run as a script)
from bench_report import criteria, plot, write_markdown

# the kit installed (pip install -e . in a checkout, or its wheel): h2d_contracts is importable
from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import _staging


def empty_host_caches() -> None:
    """Cold start for every pattern: the reference's staging pool emptied, then torch's caching host allocator."""
    torch.cuda.synchronize()
    _staging.empty_staging_cache()
    empty = getattr(torch._C, "_host_emptyCache", None)
    if empty is not None:
        empty()


Pattern = Callable[[Any, torch.device], torch.Tensor]


def _as_tensor(payload: Any) -> torch.Tensor:
    if isinstance(payload, torch.Tensor):
        return payload
    if isinstance(payload, np.ndarray):
        return torch.from_numpy(payload)
    return torch.tensor(payload)


def patterns() -> dict[str, Pattern]:
    pats: dict[str, Pattern] = {
        "reference": lambda p, d: h2d_impl.async_tensor_h2d(p, d),
        "naive": lambda p, d: _as_tensor(p).to(d, non_blocking=True),
        "pin_memory": lambda p, d: _as_tensor(p).pin_memory().to(d, non_blocking=True),
        "alloc_pinned": lambda p, d: (
            lambda t: torch.empty(t.shape, dtype=t.dtype, pin_memory=True).copy_(t).to(d, non_blocking=True)
        )(_as_tensor(p)),
    }
    try:  # a downstream target, when installed
        from vllm.utils.torch_utils import async_tensor_h2d as vllm_h2d  # type: ignore

        pats["vllm"] = lambda p, d: vllm_h2d(p, d)
    except Exception:  # noqa: BLE001 - vllm not importable whole (its dependency tree): its own helper, source-loaded
        try:
            from h2d_contracts.contracts.targets.vllm import vllm_helper

            helper = vllm_helper(pin=torch.cuda.is_available())
            pats["vllm"] = lambda p, d: helper(p, d)
        except Exception:  # noqa: BLE001 - vllm absent: measured only where it is
            pass
    return pats


def cycles_per_ms(device: torch.device) -> float:
    with torch.cuda.device(device):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        torch.cuda._sleep(1_000_000)
        e.record()
        e.synchronize()
        return 1_000_000 / s.elapsed_time(e)


#: The input kinds of (a): every kind vLLM's model runner passes on its hot path (issue 24, item 1).
SMALL_KINDS = ("list", "ndarray", "tensor", "pinned")


def payload(kind: str, n: int) -> Any:
    """n int32 elements as a list, an ndarray, a pageable tensor or a pinned tensor (one of :data:`SMALL_KINDS`)."""
    if kind == "list":
        return list(range(n))
    if kind == "ndarray":
        return np.arange(n, dtype=np.int32)
    if kind == "pinned":
        return torch.arange(n, dtype=torch.int32).pin_memory()
    return torch.arange(n, dtype=torch.int32)


def staged_call(p: Any, device: torch.device) -> torch.Tensor:
    """The minimal staged call, the simplest correct code: the host data into new pinned memory, ``torch.empty`` on
    the device, one non-blocking copy. No validation, no dtype argument, no pool: the floor the hot-path target
    compares against (the reference at most 1.5x it; issue 24, item 1)."""
    if isinstance(p, list):
        pinned = torch.tensor(p, pin_memory=True)
    else:
        src = torch.from_numpy(p) if isinstance(p, np.ndarray) else p
        pinned = torch.empty(src.shape, dtype=src.dtype, pin_memory=True).copy_(src)
    out = torch.empty(pinned.shape, dtype=pinned.dtype, device=device)
    return out.copy_(pinned, non_blocking=True)


def host_us(
    fn: Callable[[], Any], iters: int, device: torch.device, *, warm: int | None = None, sync_every: int = 64
) -> float:
    """Median host time of one call in microseconds, after ``warm`` calls (default ``min(100, iters)``); syncs every
    ``sync_every`` calls, outside the timing."""
    for _ in range(min(100, iters) if warm is None else warm):
        fn()
    torch.cuda.synchronize(device)
    times = []
    for i in range(iters):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
        if i % sync_every == sync_every - 1:
            torch.cuda.synchronize(device)
    torch.cuda.synchronize(device)
    return statistics.median(times) / 1e3


def busy_host_ms(
    calls: dict[str, Callable[[], Any]], device: torch.device, busy_ms: float, cpm: float, reps: int
) -> dict[str, float]:
    """Median host time (ms) of each ``calls[name]()`` issued right after ``busy_ms`` of spin work was queued on the current stream.

    The device is synchronized before each sample and after it, so every sample starts
    behind the same queue; ``cpm`` is :func:`cycles_per_ms` of the device. The patterns are
    sampled interleaved, rep by rep, and each rep starts one pattern later: no pattern is
    always the first sample after the row's set-up. (An earlier version took each pattern's
    reps in a row, the reference first; bench/probe_variants.py on the H200 then measured one
    and the same code path at 0.29 ms when first in its round and 0.15 ms when second;
    see docs/performance.md.)
    """

    def sample(call: Callable[[], Any]) -> float:
        return host_ns_after(call, device, lambda: queue_spin(device, busy_ms, cpm)) / 1e6

    return rotated_medians(calls, reps, sample)


def queue_spin(device: torch.device, ms: float, cpm: float) -> None:
    """Queue ``ms`` of spin work on the current stream of ``device`` (``cpm``: :func:`cycles_per_ms`)."""
    with torch.cuda.device(device):
        torch.cuda._sleep(int(ms * cpm))


def host_ns_after(call: Callable[[], Any], device: torch.device, before: Callable[[], Any]) -> int:
    """Host ns of ``call()`` issued right after ``before()`` (queued work, a wait), the device synchronized before
    ``before`` and after the call; the result is dropped inside the timing, as in every sample of section (b)."""
    torch.cuda.synchronize(device)
    before()
    t0 = time.perf_counter_ns()
    call()
    ns = time.perf_counter_ns() - t0
    torch.cuda.synchronize(device)
    return ns


def round_order(names: list[str], r: int) -> list[str]:
    """The order of round ``r``: each round starts one name later (no name is always the first sample after a row's
    set-up), and odd rounds run the rest backwards, so each name follows two different names, not always the same
    one. (Rotation alone kept one predecessor per name: in section (b) the reference always followed
    ``buffer_floor`` and vLLM ``alloc_pinned``; on one H100 the bench's busy rows then had the reference at 1.7-1.8x
    vLLM where ``dev/busy_path_probe.py``, each pattern sampled in a row, had them tie: docs/performance.md.)"""
    k = r % len(names)
    rest = names[k + 1 :] + names[:k]
    return [names[k], *(reversed(rest) if r % 2 else rest)]


def rotated_medians(
    calls: dict[str, Callable[[], Any]], rounds: int, sample: Callable[[Callable[[], Any]], float]
) -> dict[str, Any]:
    """Median over ``rounds`` of ``sample(calls[name])`` per name, the calls interleaved round by round (the order:
    :func:`round_order`); under ``"spread"``, per name, ``[min, median, max]`` of its rounds."""
    names = list(calls)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in round_order(names, r):
            samples[name].append(sample(calls[name]))
    out: dict[str, Any] = {name: statistics.median(v) for name, v in samples.items()}
    out["spread"] = {name: [min(v), statistics.median(v), max(v)] for name, v in samples.items()}
    return out


def _floats(row: dict[str, Any]) -> str:
    return " ".join(f"{k}={v:.2f}" for k, v in row.items() if isinstance(v, float))


def _pinned_check_floor(data: torch.Tensor, device: torch.device) -> torch.Tensor | None:
    """``data.is_pinned()`` then ``data.to(device, non_blocking=True)``: the floor of a zero-copy call of a pinned tensor."""
    return data.to(device, non_blocking=True) if data.is_pinned() else None


def bench_small(
    device: torch.device, pats: dict[str, Pattern], sizes: list[int], iters: int, rounds: int = 5
) -> list[dict]:
    """(a) host us per call on an idle stream: per cell the median of ``rounds`` round medians of ``iters // rounds`` calls.

    The floor and the patterns are measured round by round, each round starting one later
    (as :func:`busy_host_ms`): in an earlier H200 run the first cell, the reference's
    1-element list, read 25.2 us while an interleaved probe of the same code on the same
    machine read 15.5 (bench/probe_variants.py;
    see docs/performance.md).
    """
    rows = []
    per_round = max(1, iters // rounds)
    for n in sizes:
        buf = h2d_impl.CpuGpuBuffer(max(n, 1), dtype=torch.int32, device=device, pin_memory=True)
        buf.cpu.copy_(torch.arange(max(n, 1), dtype=torch.int32))
        for kind in SMALL_KINDS:
            data = payload(kind, n)
            calls: dict[str, Callable[[], Any]] = {
                "buffer_floor": lambda: buf.copy_to_gpu(n),
                "raw_slice_copy": lambda: buf.gpu[:n].copy_(buf.cpu[:n], non_blocking=True),
                "staged_floor": functools.partial(staged_call, data, device),
            }
            if kind == "pinned":
                # the least a correct zero-copy call does: test that the input is pinned, then one non-blocking
                # DMA (vLLM's pinned path without its other checks): what 0.9x vLLM leaves room for
                calls["pinned_check_floor"] = functools.partial(_pinned_check_floor, data, device)
            calls.update({name: functools.partial(fn, data, device) for name, fn in pats.items()})
            row = {
                "n": n,
                "kind": kind,
                **rotated_medians(calls, rounds, lambda call: host_us(call, per_round, device)),
            }
            rows.append(row)
            print(f"(a) n={n:5d} {kind:8s} " + _floats(row), flush=True)
    return rows


def bench_busy(
    device: torch.device, pats: dict[str, Pattern], sizes: list[int], busy_ms: float, reps: int
) -> list[dict]:
    cpm = cycles_per_ms(device)
    rows = []
    for nbytes in sizes:
        n = nbytes // 4
        data = torch.arange(n, dtype=torch.int32)
        row: dict[str, Any] = {"bytes": nbytes, "host_to_pinned_ms": host_to_pinned_ms(data)}
        buf = h2d_impl.CpuGpuBuffer(n, dtype=torch.int32, device=device, pin_memory=True)
        cases = dict(pats)
        cases["buffer_floor"] = lambda p, d: buf.copy_to_gpu(n)
        for fn in cases.values():
            fn(data, device)  # warm-up: the caching host allocator then holds blocks of the size
            torch.cuda.synchronize(device)
        row.update(
            busy_host_ms(
                {name: functools.partial(fn, data, device) for name, fn in cases.items()}, device, busy_ms, cpm, reps
            )
        )
        rows.append(row)
        print(f"(b) {nbytes:>11d} B busy {busy_ms:.0f} ms: " + _floats(row), flush=True)
    return rows


def host_to_pinned_ms(data: torch.Tensor, reps: int = 3) -> float:
    """Median ms of a plain ``copy_`` of ``data`` (pageable) into a preallocated, warm pinned buffer: the host-side
    floor the busy-stream bound is stated against (1 ms + 1.2x this; docs/performance.md)."""
    pinned = torch.empty_like(data, pin_memory=True)
    pinned.copy_(data)
    copies = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        pinned.copy_(data)
        copies.append((time.perf_counter_ns() - t0) / 1e6)
    return statistics.median(copies)


def pinned_dma_gbps(device: torch.device, nbytes: int, reps: int = 10) -> float:
    src = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
    dst = torch.empty(nbytes, dtype=torch.uint8, device=device)
    for _ in range(3):
        dst.copy_(src, non_blocking=True)
    torch.cuda.synchronize(device)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(reps):
        dst.copy_(src, non_blocking=True)
    e.record()
    e.synchronize()
    return reps * nbytes / (s.elapsed_time(e) / 1e3) / 1e9


def one_dma_gbps(dst: torch.Tensor, src: torch.Tensor) -> float:
    """GB/s of one non_blocking copy of pinned ``src`` into device ``dst`` (same bytes), timed by CUDA events on the
    current stream."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    dst.copy_(src, non_blocking=True)
    e.record()
    e.synchronize()
    return src.numel() * src.element_size() / (s.elapsed_time(e) / 1e3) / 1e9


def fresh_dma_gbps(device: torch.device, data: torch.Tensor, reps: int = 5) -> float:
    """One DMA's rate from a pinned buffer the host has just written (GB/s, median of ``reps``, CUDA events).

    Each rep: ``copy_`` of pageable ``data`` into a preallocated pinned tensor, then one DMA of it to the device
    alone. Every staged call DMAs a buffer it has just written; on the H200 (docs/performance.md) such a DMA ran at
    about half the rate of the same buffer DMAed again at 1-16 MiB. Shown beside (c) with ``pinned_dma_limit``.
    """
    pinned = torch.empty_like(data, pin_memory=True)
    dst = torch.empty_like(data, device=device)
    pinned.copy_(data)  # first touch of the pinned pages and the device memory outside the timing
    dst.copy_(pinned)
    torch.cuda.synchronize(device)
    rates = []
    for _ in range(reps):
        pinned.copy_(data)
        rates.append(one_dma_gbps(dst, pinned))
    return statistics.median(rates)


def host_copy_gbps(data: torch.Tensor, reps: int = 5) -> float:
    """The host side alone: GB/s of ``copy_`` from pageable ``data`` into a preallocated pinned tensor (median of ``reps``).

    Every staged pattern does this copy for each call, so with perfect overlap its steady
    throughput is at most min(this, the pinned DMA limit); shown beside (c) to tell a
    DMA-bound row from a host-memory-bound one (a probe on the H200, docs/performance.md:
    40 GB/s at 64 MiB and 256 MiB against a 54 GB/s DMA limit).
    """
    pinned = torch.empty_like(data, pin_memory=True)
    pinned.copy_(data)  # first touch of the pinned pages outside the timing
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        pinned.copy_(data)
        times.append(time.perf_counter() - t0)
    return data.numel() * data.element_size() / statistics.median(times) / 1e9


def concurrent_limit_gbps(
    device: torch.device, data: torch.Tensor, dma_gbps_alone: float, cpm: float, window_ms: float = 150.0
) -> dict[str, float]:
    """The host copy and the DMA of a staged pattern's steady state, run at once on separate buffers (GB/s).

    A staged call copies its bytes pageable -> pinned on the host and DMAs them pinned -> device; in
    steady state the host copy of one call overlaps the DMA of the one before, so neither runs
    alone: both read host memory at once. Here DMAs of a pinned buffer to the device are queued
    on a side stream for about ``window_ms`` (``dma_gbps_alone``: the DMA's rate alone, to size the
    window), held back by a spin kernel (``cpm``: :func:`cycles_per_ms`) until all are queued, and
    while they run the host copies ``data`` into another pinned buffer (``copy_``, as
    :func:`host_copy_gbps`) until the last DMA has completed.
    Returns ``host_gbps`` (the host copy's rate while DMAs ran) and ``dma_gbps`` (the DMAs' rate
    while the host copied, from CUDA events). Target 3 measures its floor (85% of min(pinned DMA,
    host copy)) with each rate alone; ``bench_report.pipeline_limit`` combines these two with the
    rates alone into the most any schedule of the two steps sustains, and a row whose floor lies
    above that (and above every pattern's best round) is out of reach on this machine. The last
    host copy may end after the DMAs (a part of it alone), which can only raise ``host_gbps``,
    never lower it.
    """
    nbytes = data.numel() * data.element_size()
    host_dst = torch.empty_like(data, pin_memory=True)
    dma_src = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
    dma_dst = torch.empty(nbytes, dtype=torch.uint8, device=device)
    host_dst.copy_(data)  # first touch of the pinned pages outside the timing
    dma_dst.copy_(dma_src)
    torch.cuda.synchronize(device)
    dma_ms = nbytes / (dma_gbps_alone * 1e6)
    reps = max(4, int(window_ms / dma_ms) + 1)
    side = torch.cuda.Stream(device)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.cuda.stream(side):
        torch.cuda._sleep(int((5.0 + reps * 0.02) * cpm))  # every DMA queued (about 5 us each) before the first runs
        start.record(side)
        for _ in range(reps):
            dma_dst.copy_(dma_src, non_blocking=True)
        end.record(side)
    while not start.query():  # the DMAs have begun
        pass
    copies, t0 = 0, time.perf_counter()
    while copies == 0 or not end.query():
        host_dst.copy_(data)
        copies += 1
    host_s = time.perf_counter() - t0
    end.synchronize()
    dma_gbps = reps * nbytes / (start.elapsed_time(end) / 1e3) / 1e9
    host_gbps = copies * nbytes / host_s / 1e9
    return {"host_gbps": host_gbps, "dma_gbps": dma_gbps}


#: Calls per throughput sample at least: with 3 (the 1 GiB row of a 2 GiB total) one call's host copy or DMA cannot
#: overlap anything, so even a perfect pipeline reads 3B / (3 T_host + T_dma), 37 GB/s at 48 GB/s host copy and
#: 55 GB/s DMA, under the 41 GB/s that 85% of the host copy asks (the H200 record of 2026-12-05b: docs/performance.md).
MIN_STEADY_CALLS = 8


def steady_gbps(
    call: Callable[[], Any],
    nbytes: int,
    calls: int,
    device: torch.device,
    before_timing: Callable[[], Any] | None = None,
) -> float:
    """One steady-state sample of section (c): GB/s of ``calls`` back-to-back calls of ``nbytes`` each.

    Each pattern from the same start: the caching host allocator emptied (no pattern inherits pinned blocks an earlier
    one allocated: without this, the first pattern measured, the reference, paid the cudaHostAlloc calls the later ones
    reused), then warmed by ``calls`` back-to-back calls (an untimed sample), a sync, and ``calls`` timed calls, the
    first four results held (no early reuse of their memory). ``before_timing``, if given, runs right before the timed
    calls (``dev/pool_depth_probe.py`` reads the pool's counters there).

    The warm-up is a whole sample, not ``min(calls, 8)`` calls as before 2026-12-06: a pool or caching allocator grows
    one pinned block (about 1 ms or more) each time the calls get that far ahead of their DMAs, so after 8 warm calls
    a pool that keeps 12 blocks of 4 MiB in flight was still pinning them inside the timed calls
    (``python3 dev/pool_sim.py --host-gbps 300 --dma-gbps 52 --call-us 20 --pin-us-per-mib 450 --depths-mib 0 --warm
    bench``, the H100 bench's 4 MiB rates): the sample timed a process's first burst, not its steady state.
    """
    empty_host_caches()
    for _ in range(calls):
        call()
    torch.cuda.synchronize(device)
    if before_timing is not None:
        before_timing()
    t0 = time.perf_counter()
    keep = [call() for _ in range(min(calls, 4))]  # hold a few results: no early reuse
    for _ in range(calls - len(keep)):
        call()
    torch.cuda.synchronize(device)
    gbps = calls * nbytes / (time.perf_counter() - t0) / 1e9
    del keep
    return gbps


def bench_throughput(
    device: torch.device, pats: dict[str, Pattern], sizes: list[int], total_bytes: int, rounds: int = 3
) -> tuple[list[dict], dict[int, float]]:
    """(c) steady-state GB/s per pattern: ``rounds`` interleaved rounds of ``total_bytes / rounds`` calls' bytes each
    (at least :data:`MIN_STEADY_CALLS` calls), per size; beside them the DMA alone, the host copy alone and the two at
    once (:func:`concurrent_limit_gbps`)."""
    rows = []
    limits = {}
    cpm = cycles_per_ms(device)
    for nbytes in sizes:
        limits[nbytes] = pinned_dma_gbps(device, min(nbytes, 256 << 20))
        data = torch.arange(nbytes // 4, dtype=torch.int32)
        calls = max(3, total_bytes // nbytes)
        both = concurrent_limit_gbps(device, data, limits[nbytes], cpm)
        row: dict[str, Any] = {
            "bytes": nbytes,
            "calls": calls,
            "pinned_dma_limit": limits[nbytes],
            "host_copy_rate": host_copy_gbps(data),
            "fresh_dma_gbps": fresh_dma_gbps(device, data),
            "concurrent_host_gbps": both["host_gbps"],
            "concurrent_dma_gbps": both["dma_gbps"],
        }
        per_round = max(MIN_STEADY_CALLS, calls // rounds)
        row["calls_per_round"] = per_round
        sample = functools.partial(steady_gbps, nbytes=nbytes, calls=per_round, device=device)
        row.update(rotated_medians({n: functools.partial(fn, data, device) for n, fn in pats.items()}, rounds, sample))
        rows.append(row)
        print(f"(c) {nbytes:>11d} B x{calls}: " + _floats(row), flush=True)
    return rows, limits


def _layout_inputs() -> dict[str, torch.Tensor]:
    """Pinned inputs that need no host work (dense in a permutation) and one that needs one pass (a column slice), 16 MiB each."""
    base = torch.arange(2048 * 2048, dtype=torch.float32).reshape(2048, 2048).pin_memory()
    cl = torch.arange(8 * 64 * 128 * 64, dtype=torch.float32).reshape(8, 64, 128, 64)
    wide = torch.arange(2048 * 4096, dtype=torch.float32).reshape(2048, 4096).pin_memory()
    return {
        "pinned transposed 2048x2048 f32 (.t())": base.t(),
        "pinned channels-last 8x64x128x64 f32": cl.contiguous(
            memory_format=torch.channels_last
        ).pin_memory(),  # .contiguous() makes a pageable copy: pin it again
        "pinned column slice [:, :2048] of 2048x4096 f32": wide[:, :2048],
        "pinned contiguous 2048x2048 f32": base,
    }


def bench_layouts(device: torch.device, pats: dict[str, Pattern], busy_ms: float, reps: int) -> list[dict]:
    """(d) host us on an idle stream and host ms behind ``busy_ms`` of queued work, per pinned layout."""
    cpm = cycles_per_ms(device)
    rows = []
    pats = dict(pats)
    if "vllm" in pats:
        vllm = pats["vllm"]
        pats["vllm_contiguous"] = lambda p, d: vllm(p, d).contiguous()
    for label, data in _layout_inputs().items():
        row: dict[str, Any] = {"layout": label, "bytes": data.numel() * data.element_size()}
        if "vllm" in pats:  # whether vLLM's own result is already what the reference promises (like with like)
            row["vllm_result_contiguous"] = bool(pats["vllm"](data, device).is_contiguous())
            torch.cuda.synchronize(device)
        idle = rotated_medians(
            {name: functools.partial(fn, data, device) for name, fn in pats.items()},
            5,
            lambda call: host_us(call, 10, device),
        )
        row.update({f"{name}_idle_us": us for name, us in idle.items() if name != "spread"})
        row["spread"] = {f"{name}_idle_us": v for name, v in idle["spread"].items()}
        busy = busy_host_ms(
            {name: functools.partial(fn, data, device) for name, fn in pats.items()}, device, busy_ms, cpm, reps
        )
        row.update({f"{name}_busy_ms": ms for name, ms in busy.items() if name != "spread"})
        row["spread"].update({f"{name}_busy_ms": v for name, v in busy["spread"].items()})
        rows.append(row)
        print(f"(d) {label}: " + _floats(row), flush=True)
    return rows


def bench_cold(
    device: torch.device, pats: dict[str, Pattern], sizes: list[int], busy_ms: float, rounds: int = 3
) -> list[dict]:
    """(e) the first call of each size behind the busy stream, the caching host allocator emptied first.

    Also measures the host-side floor the bound is stated against: a plain ``copy_`` of the
    same bytes from the pageable source into a preallocated (warm) pinned buffer.
    """
    empty_host_cache = getattr(torch._C, "_host_emptyCache", None)
    cpm = cycles_per_ms(device)
    rows = []
    for nbytes in sizes:
        data = torch.arange(nbytes // 4, dtype=torch.int32)
        row: dict[str, Any] = {
            "bytes": nbytes,
            "host_to_pinned_ms": host_to_pinned_ms(data),
            "cache_emptied": empty_host_cache is not None,
        }

        def sample(call: Callable[[], Any]) -> float:
            empty_host_caches()
            with torch.cuda.device(device):
                torch.cuda._sleep(int(busy_ms * cpm))
            t0 = time.perf_counter_ns()
            result = call()
            ms = (time.perf_counter_ns() - t0) / 1e6
            torch.cuda.synchronize(device)
            del result
            return ms

        # naive: blocks by design from 4 MiB up (table (b)); each pattern's first call, cold, in interleaved rounds
        calls = {n: functools.partial(fn, data, device) for n, fn in pats.items() if n != "naive"}
        row.update(rotated_medians(calls, rounds, sample))
        row["bound_ms"] = 1.0 + 1.2 * row["host_to_pinned_ms"]
        rows.append(row)
        print(f"(e) {nbytes:>11d} B cold, busy {busy_ms:.0f} ms: " + _floats(row), flush=True)
        del data
    return rows


def profile_reference(device: torch.device, nbytes: int, path: str) -> None:
    from torch.profiler import ProfilerActivity, profile

    data = torch.arange(nbytes // 4, dtype=torch.int32)
    for _ in range(2):
        h2d_impl.async_tensor_h2d(data, device)
    torch.cuda.synchronize(device)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            h2d_impl.async_tensor_h2d(data, device)
        torch.cuda.synchronize(device)
    with open(path, "w") as fh:
        fh.write(
            f"torch.profiler, reference async_tensor_h2d, 3 calls of {nbytes >> 20} MiB pageable int32 -> {device}\n\n"
        )
        fh.write(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15))
        fh.write("\n\nCUDA time:\n")
        fh.write(prof.key_averages().table(sort_by="self_device_time_total", row_limit=10))


def profile_small(device: torch.device, path: str) -> None:
    """Where a small call's host time goes: cProfile of 2000 reference calls (16 int32 elements, tensor input), appended to ``path``.

    cProfile rather than torch.profiler: the cost to find is Python-level (argument checks,
    device resolution), which torch.profiler's operator view does not attribute.
    """
    import cProfile
    import io
    import pstats

    data = torch.arange(16, dtype=torch.int32)
    for _ in range(200):
        h2d_impl.async_tensor_h2d(data, device)
    torch.cuda.synchronize(device)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(2000):
        h2d_impl.async_tensor_h2d(data, device)
    prof.disable()
    torch.cuda.synchronize(device)
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(25)
    with open(path, "a") as fh:
        fh.write(
            f"\n\ncProfile, reference async_tensor_h2d, 2000 calls of 16 int32 (pageable tensor) -> {device}, by own time\n\n"
        )
        fh.write(text.getvalue())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench-out")
    ap.add_argument("--quick", action="store_true", help="fewer sizes and iterations (smoke test)")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("needs a CUDA device", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    device = torch.device("cuda", torch.cuda.current_device())
    pats = patterns()
    small_sizes = [1, 16, 256, 4096, 65536] if not args.quick else [1, 256]
    busy_sizes = [4 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20] if not args.quick else [4 << 10, 16 << 20]
    tp_sizes = [1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30] if not args.quick else [1 << 20, 64 << 20]
    cold_sizes = [4 << 10, 1 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30] if not args.quick else [4 << 10, 16 << 20]
    res: dict[str, Any] = {
        "gpu": torch.cuda.get_device_name(device),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": sys.version.split()[0],
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": "python3 bench/h2d_bench.py " + " ".join(sys.argv[1:]),
        "patterns": list(pats),
        "busy_ms": 100.0,
        # 7, not 3: in one H200 run the median of 3 put the reference at 1.93 ms for 16 MiB, where a
        # replay with its phases timed gave 0.49-0.70 ms in 4 of 5 reps and one 6.66 ms outlier
        # (measured on the H200; see docs/performance.md)
        "busy_reps": 7,
    }

    def save() -> None:  # after every section, so a run cut short still leaves its numbers
        with open(os.path.join(args.out, "results.json"), "w") as fh:
            json.dump(res, fh, indent=1)

    res["small"] = bench_small(device, pats, small_sizes, 600 if not args.quick else 100)
    save()
    res["busy"] = bench_busy(device, pats, busy_sizes, res["busy_ms"], res["busy_reps"])
    save()
    res["throughput"], _ = bench_throughput(device, pats, tp_sizes, (2 << 30) if not args.quick else (256 << 20))
    save()
    res["layouts"] = bench_layouts(device, pats, res["busy_ms"], res["busy_reps"])
    save()
    res["cold"] = bench_cold(device, pats, cold_sizes, res["busy_ms"])
    res["criteria"] = criteria(res)
    res["staging_stats"] = _staging.staging_stats()
    save()
    profile_reference(device, 256 << 20, os.path.join(args.out, "profile.txt"))
    profile_small(device, os.path.join(args.out, "profile.txt"))
    write_markdown(res, os.path.join(args.out, "results.md"))
    plot(res, os.path.join(args.out, "h2d_bench.png"))
    print(open(os.path.join(args.out, "results.md")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
