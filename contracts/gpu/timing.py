"""Timing on a CUDA device: a busy stream of calibrated length, memcpy kinds from the profiler, and judging whether a call waited for the stream."""

from __future__ import annotations

import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch

from h2d_contracts.harness.calling import call_valid, domain_kwargs, synchronize
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable, fail

#: Work queued on the stream before a timed call, in ms: at least this (the ~100 ms the design
#: specifies), and at least ``CALIBRATION_FACTOR`` times the host time of the same call made warm
#: on an idle stream, so a call that does not wait returns long before the work ends, on a loaded
#: host too (docs/contracts.md, non-blocking).
BUSY_MS = 100.0
#: The queued work is at least this many times the warm call's own host time.
CALIBRATION_FACTOR = 10.0
#: A call seen to wait is timed once more behind this many times as much work before the kit
#: concludes: a blocking call waits again, a call that was merely slow once (the host preempted)
#: does not take four times as long again.
CONFIRM_FACTOR = 4.0
#: No timed call queues more than this (ms).
MAX_BUSY_MS = 2000.0
#: A call that waited but took more than this many times the queued work (plus its own warm time) was slowed by
#: something else (other processes on the host: a verification run sharing the H200 with 30 others saw a correct
#: call take 2,055 ms behind 269 ms of work): no evidence of waiting; the kit queues more work and tries again.
SLOW_HOST_FACTOR = 1.5
#: Tries of one timed call at most (the work growing by CONFIRM_FACTOR up to MAX_BUSY_MS): two judged waits fail it,
#: fewer pass it (a host too loaded to judge, never a verdict on the target).
MAX_ATTEMPTS = 5

_CALIBRATION: dict[int, float] = {}


def requires_cuda(target: Target, contract: str, device: torch.device | None = None) -> None:
    """Raise NotApplicable when CUDA is absent or the target cannot target CUDA."""
    if not torch.cuda.is_available():
        raise NotApplicable(f"contract '{contract}' needs a CUDA device; none is available")
    target.require("cuda", contract)
    if device is not None and device.type != "cuda":
        raise NotApplicable(f"contract '{contract}' is about CUDA targets, got device {device}")


def filler_kind(target: Target) -> str:
    """The input kind a check's filler calls (many calls of one size, their values aside) send ``target``: ``"tensor"``
    where it takes tensors, else ``"ndarray"`` where it takes arrays, else ``"list"`` (SGLang's ``async_h2d``)."""
    return "tensor" if "tensor" in target.inputs else "ndarray" if "ndarray" in target.inputs else "list"


def int32_filler(kind: str, value: int, n: int) -> Any:
    """``n`` int32 elements of ``value`` as input kind ``kind`` (:func:`filler_kind`)."""
    t = torch.full((n,), value, dtype=torch.int32)
    return t if kind == "tensor" else t.numpy() if kind == "ndarray" else t.tolist()


def filler_kwargs(target: Target, device: torch.device) -> dict[str, Any]:
    """The keyword arguments of a filler call (:func:`int32_filler`) to ``device``: ``{"device": device}``, completed
    with ``dtype=torch.int32`` where ``target`` requires a dtype (SGLang's ``async_h2d``; :func:`domain_kwargs`)."""
    return domain_kwargs(target, int32_filler("tensor", 0, 1), {"device": device})


def cycles_per_ms(device: torch.device) -> float:
    """``torch.cuda._sleep`` cycles per millisecond on ``device``: median of 3 event-timed runs, cached."""
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _CALIBRATION:
        samples = []
        with torch.cuda.device(index):
            for _ in range(3):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                torch.cuda._sleep(1_000_000)
                end.record()
                end.synchronize()
                samples.append(1_000_000 / start.elapsed_time(end))
        _CALIBRATION[index] = statistics.median(samples)
    return _CALIBRATION[index]


def busy(ms: float, device: torch.device) -> torch.cuda.Event:
    """Queue ~``ms`` of spin work on the *current* stream of ``device``; return an event recorded after it."""
    cycles = int(ms * cycles_per_ms(device))
    with torch.cuda.device(device):
        torch.cuda._sleep(cycles)
        event = torch.cuda.Event()
        event.record()
    return event


def calls_behind_queued_work(
    contract: str, target: Target, device: torch.device, payloads: list[Any], busy_ms: float, *, later_ms: float = 0.0
) -> tuple[list[torch.Tensor], float, bool]:
    """Every payload sent to ``device`` back to back behind ``busy_ms`` of queued work, the first ones still queued
    when they return (read off the work's event; the work doubled up to twice until they are).

    With ``later_ms``, that much more work (at least twice the first) is queued after the first calls' copies and
    before the last call. Returns ``(results, the work queued first in ms, whether the later work still ran when
    the last call returned)``; synchronizes fully.

    Raises:
        NotApplicable: the first calls outlasted even four times ``busy_ms`` on this host (no pool was ever full).
    """
    for work in (busy_ms, 2 * busy_ms, 4 * busy_ms):
        synchronize()
        first = busy(work, device)
        results = [call_valid(contract, target, p, {"device": device}) for p in payloads[:-1]]
        still_queued = not first.query()
        later = busy(max(later_ms, 2 * work), device) if later_ms else None
        results.append(call_valid(contract, target, payloads[-1], {"device": device}))
        later_running = later is not None and not later.query()
        synchronize()
        if still_queued:
            return results, work, later_running
    raise NotApplicable(
        f"{contract}: {len(payloads) - 1} calls of {payloads[0].nbytes >> 20} MiB took longer on this host than "
        f"{4 * busy_ms:.0f} ms of queued work"
    )


def memcpy_kinds(fn: Callable[[], Any]) -> tuple[list[str], Any]:
    """Run ``fn`` under ``torch.profiler`` (CPU + CUDA) and return the memcpy event names and its result."""
    from torch.profiler import ProfilerActivity, profile

    synchronize()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            result = fn()
            synchronize()
        names = [e.name for e in prof.events() if e.name.startswith("Memcpy")]
    return names, result


def _timed_behind_busy(fn: Callable[[], Any], device: torch.device, busy_ms: float) -> tuple[Any, float, bool]:
    """Queue ``busy_ms`` of spin work on ``device``'s current stream, then time ``fn()`` on the host.

    Returns ``(fn's result, host ms, whether fn waited)``: it waited when the event recorded
    after the spin work had completed by the time ``fn`` returned (the stream's own state,
    not the host's clock). Synchronizes fully before returning.
    """
    done = busy(busy_ms, device)
    t0 = time.perf_counter()
    result = fn()
    host_ms = (time.perf_counter() - t0) * 1e3
    waited = bool(done.query())
    synchronize()
    return result, host_ms, waited


def _returns_while_busy(
    fn: Callable[[], Any], device: torch.device, busy_ms: float, warm_ms: float, what: str, call: str
) -> tuple[Any, float]:
    """non-blocking: ``fn()`` behind calibrated queued work, confirmed once before failing; ``(result, host ms)``."""
    queued = min(MAX_BUSY_MS, max(busy_ms, CALIBRATION_FACTOR * warm_ms))
    seen: list[tuple[float, float]] = []
    work = queued
    for _ in range(MAX_ATTEMPTS):
        result, host_ms, waited = _timed_behind_busy(fn, device, work)
        if not waited:
            return result, host_ms
        if host_ms <= SLOW_HOST_FACTOR * work + warm_ms:
            seen.append((work, host_ms))  # returned about when the work ended: a wait
            if len(seen) == 2:
                break
        # else the call took far longer than the work itself (a host slowed by other load): no evidence either way
        work = min(MAX_BUSY_MS, work * CONFIRM_FACTOR)
    if len(seen) < 2:
        # never judged twice in MAX_ATTEMPTS tries: every try but one was slower than its work by far, which says
        # nothing about waiting; a verdict here would be the host's load, not the target's (the target on a quiet
        # host is judged at its first two tries)
        return result, host_ms
    fail(
        "non-blocking",
        f"{what} blocked the host until the stream's queued work had finished, twice (behind "
        + " and ".join(f"{w:.0f} ms" for w, _ in seen)
        + f" of spin work; warm on an idle stream it took {warm_ms:.2f} ms)",
        got="returns after " + " and ".join(f"{h:.1f} ms" for _, h in seen) + ", the work done both times",
        expected="a return while the queued work still runs",
        call=call,
    )


def _bits(t: torch.Tensor) -> torch.Tensor:
    # flattened first: a contiguous tensor whose last dimension has size 1 may keep a stride
    # other than 1 there, and view() to a narrower dtype refuses it (H200, seed 1: a transposed
    # pinned int16 input of prop_pinned_hazard)
    return t.contiguous().reshape(-1).view(torch.uint8) if t.numel() else t
