"""Reliability contracts: resource hygiene and concurrency (catalogue ids ``hygiene``, ``concurrency``).

- hygiene: many calls of ``async_tensor_h2d`` (mixed input kinds) and of
  ``CpuGpuBuffer.copy_to_gpu`` leak nothing: pinned host memory still referenced
  (``torch.cuda.host_memory_stats()["allocated_bytes.current"]`` at quiescence) and
  device memory (``torch.cuda.memory_allocated``) never exceed their readings after a
  warm-up.
- concurrency: several threads calling the target at once, each on its own stream or
  all on the default stream, get exactly the right result from every call.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np
import torch

from ._report import NotApplicable, fail
from .h2d import synchronize
from .target import Target

__all__ = ["check_concurrent_calls", "check_resource_hygiene", "mixed_inputs", "quiescent_bytes"]


def mixed_inputs(seed: int, count: int = 8) -> list[tuple[Any, torch.Tensor]]:
    """``count`` (input, expected CPU tensor) pairs cycling through lists, arrays, pageable tensors and strided views.

    Sizes 1..4096 int32 elements; values depend on ``seed`` so threads can tell their results apart.
    """
    rng = np.random.default_rng(seed)
    pairs: list[tuple[Any, torch.Tensor]] = []
    for i in range(count):
        n = int(rng.integers(1, 4097))
        values = rng.integers(-(2**31), 2**31 - 1, size=n, dtype=np.int64).astype(np.int32)
        kind = i % 4
        if kind == 0:
            data: Any = values.tolist()
            expected = torch.tensor(values.tolist(), dtype=torch.int64)
        elif kind == 1:
            data = values.copy()
            expected = torch.from_numpy(values.copy())
        elif kind == 2:
            data = torch.from_numpy(values.copy())
            expected = data.clone()
        else:
            store = torch.zeros(2 * n, dtype=torch.int32)
            store[::2] = torch.from_numpy(values)
            data = store[::2]
            expected = data.clone()
        pairs.append((data, expected))
    return pairs


def quiescent_bytes(device: torch.device) -> tuple[int, int]:
    """(pinned host bytes, device bytes) held by live tensors, read when nothing is in flight.

    After ``synchronize(device)`` every queued copy is done, but the caching host
    allocator returns a freed pinned block to its free list only when it processes the
    block's completion event, which it does at its next allocation: a one-element pinned
    tensor is allocated to make it do so, and the stats are read while it is held (the
    same few bytes at every reading). Then ``allocated_bytes.current`` counts only pinned
    blocks that something still references, and ``torch.cuda.memory_allocated`` only
    live device tensors: both exact, not dependent on how far the GPU had got.
    """
    synchronize(device)
    probe = torch.empty(1, dtype=torch.uint8, pin_memory=True)
    host = int(torch.cuda.host_memory_stats().get("allocated_bytes.current", 0))
    dev = int(torch.cuda.memory_allocated(device))
    del probe
    return host, dev


def check_resource_hygiene(
    target: Target,
    device: torch.device,
    *,
    calls: int = 100_000,
    warmup: int = 10_000,
    sync_every: int = 1_000,
    measure: Callable[[torch.device], tuple[int, int]] | None = None,
) -> dict[str, int]:
    """hygiene: after ``warmup`` calls, ``calls`` more leave no more pinned host or device memory referenced than after the warm-up.

    Mixed ``async_tensor_h2d`` calls (:func:`mixed_inputs`) and, when the target has a
    buffer class, ``CpuGpuBuffer.copy_to_gpu(n)`` of a pinned 4096-row int32 buffer; the
    stream is synchronized every ``sync_every`` calls, as an engine does once per step.
    Memory is read at quiescence (:func:`quiescent_bytes`, or ``measure`` in the kit's
    meta-tests) after the warm-up and after each later sync point; any reading above the
    warm-up's is a leak: exact, no margin. Not peaks: an earlier version compared the peak
    over 100,000 calls with the peak over the 10,000 warm-up calls, read while copies were
    in flight; the longer window's maximum was 213 KB higher on a passing reference once in
    five H200 runs (seed 5, two workers on one GPU, reports/gpu/), because freed pinned
    blocks are counted until their events are processed. Returns the readings (bytes).
    Raises NotApplicable without CUDA (the caching allocators measured are CUDA's).
    """
    if measure is None:
        if device.type != "cuda" or not torch.cuda.is_available():
            raise NotApplicable("hygiene: measures the CUDA caching allocators; needs a CUDA device")
        target.require("cuda", "hygiene")
        measure = quiescent_bytes
    inputs = mixed_inputs(seed=1234)
    buf = None
    if "buffer" in target.capabilities:
        buf = target.buffer_cls(4096, dtype=torch.int32, device=device, pin_memory=device.type == "cuda")

    def call(i: int) -> None:
        if buf is not None and i % 2:
            buf.copy_to_gpu(1 + i % 4096)
        else:
            data, _ = inputs[i % len(inputs)]
            target.call(data, {"device": device})

    for i in range(warmup):
        call(i)
        if i % sync_every == sync_every - 1:
            synchronize(device)
    warm_host, warm_dev = measure(device)
    host, dev = warm_host, warm_dev
    where = f"{target.name}: mixed async_tensor_h2d / copy_to_gpu loop on {device}"
    for i in range(warmup, warmup + calls):
        call(i)
        if i % sync_every == sync_every - 1 or i == warmup + calls - 1:
            host, dev = measure(device)
            done = i + 1 - warmup
            if host > warm_host:
                fail("hygiene", f"pinned host memory still referenced grew after warm-up ({done} of {calls} calls)", got=f"{host} bytes at quiescence", expected=f"<= {warm_host} bytes (after the {warmup} warm-up calls)", call=where)
            if dev > warm_dev:
                fail("hygiene", f"device memory still referenced grew after warm-up ({done} of {calls} calls)", got=f"{dev} bytes at quiescence", expected=f"<= {warm_dev} bytes (after the {warmup} warm-up calls)", call=where)
    return {"warmup_host": warm_host, "host": host, "warmup_device": warm_dev, "device": dev}


def check_concurrent_calls(target: Target, device: torch.device, *, threads: int = 8, calls: int = 10_000, own_streams: bool = True) -> None:
    """concurrency: ``threads`` threads x ``calls`` calls at once; every result is exactly right, none lost.

    On CUDA each thread works under its own ``torch.cuda.Stream`` (``own_streams``) or
    all on the default stream; mismatches are counted on the device (no per-call sync)
    and checked after each thread's stream is synchronized.
    """
    if device.type == "cuda":
        target.require("cuda", "concurrency")
    errors: list[BaseException] = []
    mismatches = [0] * threads
    done = [0] * threads
    barrier = threading.Barrier(threads)

    def worker(k: int) -> None:
        try:
            pairs = mixed_inputs(seed=k)
            expected = [e.to(device) for _, e in pairs]
            bad = torch.zeros((), dtype=torch.int64, device=device)
            stream = torch.cuda.Stream(device) if device.type == "cuda" and own_streams else None
            ctx: Callable[[], Any] = (lambda: torch.cuda.stream(stream)) if stream is not None else _nullcontext
            barrier.wait()
            with ctx():
                for i in range(calls):
                    data, _ = pairs[i % len(pairs)]
                    result = target.call(data, {"device": device})
                    want = expected[i % len(pairs)]
                    if result.shape != want.shape:
                        bad += 1
                    else:
                        bad += (result.to(torch.int64) != want.to(torch.int64)).sum()
                    done[k] += 1
                if stream is not None:
                    stream.synchronize()
            synchronize(device)
            mismatches[k] = int(bad.item())
        except BaseException as exc:  # noqa: BLE001 - reported below with the thread index
            errors.append(exc)

    pool = [threading.Thread(target=worker, args=(k,), name=f"h2d-worker-{k}") for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    call = f"{threads} threads x {calls} calls of {target.name} on {device} ({'own streams' if own_streams else 'default stream'})"
    if errors:
        fail("concurrency", "a call raised under concurrency", got=f"{type(errors[0]).__name__}: {errors[0]}", expected="no exception", call=call)
    if sum(done) != threads * calls:
        fail("concurrency", "calls lost", got=sum(done), expected=threads * calls, call=call)
    if any(mismatches):
        fail("concurrency", "wrong elements in results", got=f"{sum(mismatches)} mismatching elements (per thread {mismatches})", expected="0", call=call)


class _nullcontext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
