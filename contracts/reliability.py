"""Reliability contracts: resource hygiene and concurrency (catalogue ids ``hygiene``, ``concurrency``).

- hygiene: many calls of ``async_tensor_h2d`` (mixed input kinds) and of
  ``CpuGpuBuffer.copy_to_gpu`` leave pinned host memory
  (``torch.cuda.host_memory_stats()["allocated_bytes.current"]``, the caching host
  allocator's reserved pinned bytes) and device memory (``torch.cuda.memory_allocated``)
  bounded: after a warm-up, neither exceeds its warm-up peak.
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

__all__ = ["check_concurrent_calls", "check_resource_hygiene", "mixed_inputs"]


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


def check_resource_hygiene(target: Target, device: torch.device, *, calls: int = 100_000, warmup: int = 10_000, sync_every: int = 1_000) -> dict[str, int]:
    """hygiene: after ``warmup`` calls, ``calls`` more leave pinned host and device memory at or under the warm-up peak.

    Calls alternate between ``async_tensor_h2d`` on the inputs of :func:`mixed_inputs`
    and ``CpuGpuBuffer.copy_to_gpu(n)`` (when the target has a buffer class); the
    stream is synchronized every ``sync_every`` calls, as an engine does once per step.
    Returns the measured peaks (bytes).
    """
    if device.type != "cuda" or not torch.cuda.is_available():
        raise NotApplicable("hygiene: measures the CUDA caching allocators; needs a CUDA device")
    target.require("cuda", "hygiene")
    inputs = mixed_inputs(seed=1234)
    buf = None
    if "buffer" in target.capabilities:
        buf = target.buffer_cls(4096, dtype=torch.int32, device=device, pin_memory=True)

    def host_bytes() -> int:
        return int(torch.cuda.host_memory_stats().get("allocated_bytes.current", 0))

    def device_bytes() -> int:
        return int(torch.cuda.memory_allocated(device))

    def run(start: int, stop: int) -> tuple[int, int]:
        peak_host = peak_dev = 0
        for i in range(start, stop):
            if buf is not None and i % 2:
                buf.copy_to_gpu(1 + i % 4096)
            else:
                data, _ = inputs[i % len(inputs)]
                target.call(data, {"device": device})
            if i % sync_every == sync_every - 1:
                synchronize(device)
                peak_host, peak_dev = max(peak_host, host_bytes()), max(peak_dev, device_bytes())
        synchronize(device)
        return max(peak_host, host_bytes()), max(peak_dev, device_bytes())

    warm_host, warm_dev = run(0, warmup)
    peak_host, peak_dev = run(warmup, warmup + calls)
    if peak_host > warm_host:
        fail("hygiene", f"pinned host memory grew after warm-up over {calls} calls", got=f"{peak_host} bytes", expected=f"<= warm-up peak {warm_host} bytes", call=f"{target.name}: mixed async_tensor_h2d / copy_to_gpu loop on {device}")
    if peak_dev > warm_dev:
        fail("hygiene", f"device memory grew after warm-up over {calls} calls", got=f"{peak_dev} bytes", expected=f"<= warm-up peak {warm_dev} bytes", call=f"{target.name}: mixed async_tensor_h2d / copy_to_gpu loop on {device}")
    return {"warmup_host_peak": warm_host, "host_peak": peak_host, "warmup_device_peak": warm_dev, "device_peak": peak_dev}


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
