"""Contracts that only mean something on CUDA: staging, non-blocking, snapshot, stream, device-hygiene.

Techniques (measured on an H200):

- a busy stream: ``torch.cuda._sleep(cycles)`` queues a spin kernel; cycles per ms are
  calibrated with CUDA events per device, never hard-coded;
- memcpy kinds: ``torch.profiler`` with CUDA activity names each H2D DMA
  "Memcpy HtoD (Pageable -> Device)" or "Memcpy HtoD (Pinned -> Device)";
- pinned allocations: ``torch.cuda.host_memory_stats()`` counts requests to the
  caching host allocator ("active_requests.allocated", "allocations.allocated").

The non-blocking contract is the kit's one timing-based check, judged by the stream's own
state: the call must return while the work queued before it (at least ``BUSY_MS``,
calibrated to the call's warm host time) still runs, read off an event; a wait is confirmed
behind ``CONFIRM_FACTOR`` times the work before the check fails. A pageable "non_blocking"
copy of >= 4 MB blocked ~60 ms behind a busy stream on the H200, a staged one returned in
0.2-1.3 ms at every size up to 64 MB (measured on an H200; docs/reference.md).
"""

from __future__ import annotations

import math
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

import h2d_contracts.strategies as hs
from h2d_contracts.harness.calling import call_valid, mutate, synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.oracle import assert_same_values, expected_tensor, resolve_device, resolve_dtype
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, accepted, run_given
from h2d_contracts.harness.target import Target, run_fresh
from h2d_contracts.harness.violations import NotApplicable, fail
from h2d_contracts.strategies.describe import describe_value

from .buffer import buffer_values, make_buffer, repr_spec
from .values import check_values

__all__ = [
    "BUSY_MS",
    "CALIBRATION_FACTOR",
    "CONFIRM_FACTOR",
    "check_buffer_non_blocking",
    "busy",
    "check_back_to_back",
    "check_buffer_hazard",
    "check_non_blocking",
    "check_pinned_hazard",
    "check_pinned_not_restaged",
    "check_snapshot",
    "check_staging",
    "check_stream_no_out",
    "check_stream_out",
    "cycles_per_ms",
    "memcpy_kinds",
    "requires_cuda",
]

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

_CALIBRATION: dict[int, float] = {}


def requires_cuda(target: Target, contract: str, device: torch.device | None = None) -> None:
    """Raise NotApplicable when CUDA is absent or the target cannot target CUDA."""
    if not torch.cuda.is_available():
        raise NotApplicable(f"contract '{contract}' needs a CUDA device; none is available")
    target.require("cuda", contract)
    if device is not None and device.type != "cuda":
        raise NotApplicable(f"contract '{contract}' is about CUDA targets, got device {device}")


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


@check("staging", valid_call=True)
def check_staging(target: Target, data: Any, kwargs: dict[str, Any]) -> None:
    """staging: every H2D DMA of the call reads pinned memory (no "Pageable -> Device" memcpy)."""
    device = resolve_device(kwargs)
    requires_cuda(target, "staging", device)
    if not target.pin_memory_available():
        raise NotApplicable("staging: the target reports pinned memory unavailable on this machine")
    call = target.describe_call(data, kwargs)
    names, result = memcpy_kinds(lambda: call_valid("staging", target, data, kwargs))
    h2d = [n for n in names if "HtoD" in n]
    pageable = [n for n in h2d if "Pageable" in n]
    if pageable:
        fail(
            "staging",
            "H2D copy read pageable memory (the non_blocking copy can block the host)",
            got=h2d,
            expected="only 'Pinned -> Device' memcpys",
            call=call,
        )
    if result.numel() and not h2d:
        fail(
            "staging",
            "no H2D memcpy seen for a non-empty input",
            got=names,
            expected="at least one 'Memcpy HtoD'",
            call=call,
        )


_HOST_COUNTERS = ("active_requests.allocated", "allocations.allocated")


@check("staging", valid_call=True)
def check_pinned_not_restaged(target: Target, data: torch.Tensor, kwargs: dict[str, Any]) -> None:
    """staging: an already pinned, dense input (contiguous or a permutation of it) of the target dtype is DMA'd as is (no new pinned buffer)."""
    device = resolve_device(kwargs)
    requires_cuda(target, "staging", device)
    call = target.describe_call(data, kwargs)
    if not (data.is_pinned() and dense_layout(data) and data.dtype == resolve_dtype(data, kwargs)):
        raise ValueError(
            f"check_pinned_not_restaged needs a pinned dense input of the target dtype, got {describe_value(data)}"
        )
    call_valid("staging", target, data, kwargs)  # warm-up: lazy initialisation is not the call's cost
    synchronize()
    before = torch.cuda.host_memory_stats()
    names, _ = memcpy_kinds(lambda: call_valid("staging", target, data, kwargs))
    after = torch.cuda.host_memory_stats()
    grew = {k: after.get(k, 0) - before.get(k, 0) for k in _HOST_COUNTERS if after.get(k, 0) != before.get(k, 0)}
    if grew:
        fail(
            "staging",
            "an already pinned input was copied into a new pinned buffer",
            got=f"host allocator requests {grew}",
            expected="no pinned allocation",
            call=call,
        )
    if data.numel() and [n for n in names if "HtoD" in n] != ["Memcpy HtoD (Pinned -> Device)"]:
        fail(
            "staging",
            "an already pinned input should be copied by exactly one pinned DMA",
            got=names,
            expected="['Memcpy HtoD (Pinned -> Device)']",
            call=call,
        )


@check("non-blocking", valid_call=True)
def check_non_blocking(target: Target, data: Any, kwargs: dict[str, Any], *, busy_ms: float = BUSY_MS) -> float:
    """non-blocking: behind queued work on the stream, the call returns while that work still runs.

    A warm-up call first (so the caching host allocator holds a block of the size), timed
    on the idle stream; then the call behind ``busy_ms`` of spin work, or ten times the warm
    call's host time if that is more (:data:`CALIBRATION_FACTOR`). Whether the call waited
    is read off the stream itself: the event recorded after the work had completed when the
    call returned. A call seen to wait is timed again behind four times the work
    (:data:`CONFIRM_FACTOR`) before the kit concludes, so a correct call that a loaded host
    slowed once is not failed. Returns the host time of the passing call in ms.

    Raises:
        ContractViolation: the result differs, or the call waited for the queued work both times.
    """
    device = resolve_device(kwargs)
    requires_cuda(target, "non-blocking", device)
    call = target.describe_call(data, kwargs)
    expected = expected_tensor(data, resolve_dtype(data, kwargs))
    synchronize()
    t0 = time.perf_counter()
    call_valid("non-blocking", target, data, kwargs)
    warm_ms = (time.perf_counter() - t0) * 1e3
    synchronize()
    result, host_ms = _returns_while_busy(
        lambda: call_valid("non-blocking", target, data, kwargs), device, busy_ms, warm_ms, "the call", call
    )
    if not torch.equal(result, expected.to(result.device)):  # fast and right (device compare; report on mismatch)
        assert_same_values(result, expected, contract="non-blocking", call=call)
    return host_ms


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
    for factor in (1.0, CONFIRM_FACTOR):
        work = min(MAX_BUSY_MS, queued * factor)
        result, host_ms, waited = _timed_behind_busy(fn, device, work)
        if not waited:
            return result, host_ms
        seen.append((work, host_ms))
    fail(
        "non-blocking",
        f"{what} blocked the host until the stream's queued work had finished, twice (behind "
        + " and ".join(f"{w:.0f} ms" for w, _ in seen)
        + f" of spin work; warm on an idle stream it took {warm_ms:.2f} ms)",
        got="returns after " + " and ".join(f"{h:.1f} ms" for _, h in seen) + ", the work done both times",
        expected="a return while the queued work still runs",
        call=call,
    )


@check("non-blocking")
def check_buffer_non_blocking(
    target: Target,
    spec: dict[str, Any],
    device: torch.device,
    n: int | None,
    direction: str,
    *,
    busy_ms: float = BUSY_MS,
) -> float:
    """non-blocking (CpuGpuBuffer): ``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` of a pinned ``.cpu`` return at once behind a busy stream.

    ``direction`` is ``"copy_to_gpu"`` or ``"copy_to_cpu"``; ``n=None`` calls it without
    an argument (every row). A warm-up call, then the
    timed call behind calibrated work queued on the current stream of ``.gpu``'s device
    (as :func:`check_non_blocking`); it must return while that work still runs (a
    device-to-host copy into pinned memory with ``non_blocking=True`` is as asynchronous
    as the host-to-device one). After the
    documented wait the ``n`` rows agree. Returns the host time of the call in ms.
    """
    requires_cuda(target, "non-blocking", device)
    target.require("buffer", "non-blocking")
    buffer = make_buffer(target, spec, device)
    buffer.cpu.copy_(torch.arange(buffer.cpu.numel(), dtype=torch.int64).view(buffer.cpu.shape).to(buffer.cpu.dtype))
    buffer.gpu.copy_(
        -torch.arange(buffer.gpu.numel(), dtype=torch.int64, device=device).view(buffer.gpu.shape).to(buffer.gpu.dtype)
    )
    args = () if n is None else (n,)
    what = f"{direction}({'' if n is None else n})"
    call = f"{repr_spec(spec, device, target.buffer_name)}.{what}"
    copy = getattr(buffer, direction)
    src, dst = (buffer.cpu, buffer.gpu) if direction == "copy_to_gpu" else (buffer.gpu, buffer.cpu)
    t0 = time.perf_counter()
    copy(*args)
    warm_ms = (time.perf_counter() - t0) * 1e3
    synchronize()
    if src.numel():
        src.view(torch.uint8).bitwise_xor_(0x5A if src.dtype is not torch.bool else 1)  # new values for the timed copy
    synchronize()
    _, host_ms = _returns_while_busy(lambda: copy(*args), device, busy_ms, warm_ms, direction, call)
    got, want = _bits(dst[:n].cpu()), _bits(src[:n].cpu())
    if not torch.equal(got, want):
        fail(
            "non-blocking",
            f"after {what} and the documented wait, the rows differ",
            got=got.flatten()[:16].tolist(),
            expected=want.flatten()[:16].tolist(),
            call=call,
        )
    return host_ms


def dense_layout(t: torch.Tensor) -> bool:
    """Whether ``t``'s elements fill its bytes in some order of its dimensions (contiguous, ``.t()``, channels-last): no gaps, no overlaps."""
    if t.is_contiguous():
        return True
    dims = sorted((abs(st), sz) for st, sz in zip(t.stride(), t.shape) if sz != 1)
    expected = 1
    for stride, size in dims:
        if stride != expected:
            return False
        expected *= size
    return True


def staged_kind(data: Any, kwargs: dict[str, Any]) -> bool:
    """Inputs a target must snapshot: everything but a pinned tensor of the target dtype.

    docs/reference.md (zero-copy): an already pinned input is not copied again. A dense one (contiguous,
    ``.t()``, channels-last) is DMA'd as it lies; a view with gaps may be DMA'd as its byte
    span and gathered on the device (the reference does so up to a span of 4x its
    payload) or staged: both are correct, so no snapshot is required of it. A pinned input
    that needs a dtype conversion must be snapshotted (the conversion is host work).
    """
    if not isinstance(data, torch.Tensor):
        return True
    return not (data.is_pinned() and data.dtype == resolve_dtype(data, kwargs))


@check("snapshot", valid_call=True)
def check_snapshot(target: Target, data: Any, kwargs: dict[str, Any], *, busy_ms: float = 50.0) -> None:
    """snapshot: overwriting a staged source right after the call (copy still queued) never changes the result."""
    device = resolve_device(kwargs)
    requires_cuda(target, "snapshot", device)
    if not staged_kind(data, kwargs):
        raise ValueError(
            "check_snapshot is for staged inputs; a pinned input of the target dtype may be read in place (check_pinned_hazard)"
        )
    call = target.describe_call(data, kwargs)
    expected = expected_tensor(data, resolve_dtype(data, kwargs))
    synchronize()
    busy(busy_ms, device)
    result = call_valid("snapshot", target, data, kwargs)
    mutate(data)
    synchronize()
    assert_same_values(result, expected, contract="snapshot", call=call + "  # source overwritten right after the call")


@check("snapshot")
def check_back_to_back(target: Target, data: Any, kwargs: dict[str, Any], *, busy_ms: float = 50.0) -> None:
    """snapshot: two calls queued behind a busy stream (the second with different values) both land intact.

    Catches a staging buffer reused before its queued copy ran.
    """
    device = resolve_device(kwargs)
    requires_cuda(target, "snapshot", device)
    second = _complement(data)
    kwargs2 = dict(kwargs)
    if kwargs.get("out") is not None:
        kwargs2["out"] = kwargs["out"].clone()
    dtype = resolve_dtype(data, kwargs)
    exp1, exp2 = expected_tensor(data, dtype), expected_tensor(second, dtype)
    call = target.describe_call(data, kwargs)
    synchronize()
    busy(busy_ms, device)
    r1 = call_valid("snapshot", target, data, kwargs)
    r2 = call_valid("snapshot", target, second, kwargs2)
    synchronize()
    assert_same_values(
        r1, exp1, contract="snapshot", call=call + "  # followed at once by a second call with other values"
    )
    assert_same_values(
        r2,
        exp2,
        contract="snapshot",
        call=target.describe_call(second, kwargs2) + "  # the second of two back-to-back calls",
    )


def _complement(data: Any) -> Any:
    """Data of the same kind, shape and dtype whose every element differs from ``data``'s: ``x == 0``.

    0 and 1 are representable in every dtype, so the result stays a valid input for
    whatever target dtype ``data`` was valid for (a bit flip would not: int16 0x5A5A
    does not fit a uint8 ``out``).
    """
    if isinstance(data, torch.Tensor):
        zero = data.to(torch.float64) == 0
        return zero if data.dtype is torch.bool else zero.to(torch.float64).to(data.dtype)
    if isinstance(data, np.ndarray):
        return (data == 0).astype(data.dtype.newbyteorder("="))
    if isinstance(data, (list, tuple)):
        return type(data)(_complement(v) if isinstance(v, (list, tuple)) else type(v)(v == 0) for v in data)
    return type(data)(data == 0)


@check("snapshot")
def check_pinned_hazard(target: Target, data: torch.Tensor, kwargs: dict[str, Any], *, busy_ms: float = 50.0) -> None:
    """snapshot (pinned inputs): the documented hazard and the documented wait.

    The reference (like vLLM) DMAs a pinned, dense input (contiguous, transposed,
    channels-last) of the target dtype directly, so (a) overwriting it before the copy ran *does* reach the device (the
    hazard the docs warn about is real, i.e. no hidden copy), and (b) after the
    documented wait, ``torch.cuda.current_stream(device).synchronize()``, it is safe.
    """
    device = resolve_device(kwargs)
    requires_cuda(target, "snapshot", device)
    call = target.describe_call(data, kwargs)
    dtype = resolve_dtype(data, kwargs)
    original = expected_tensor(data, dtype)
    # (b) documented wait, then overwrite: the result keeps the original values.
    synchronize()
    busy(busy_ms, device)
    result = call_valid("snapshot", target, data, kwargs)
    torch.cuda.current_stream(device).synchronize()
    mutate(data)
    synchronize()
    assert_same_values(
        result, original, contract="snapshot", call=call + "  # overwritten after current_stream().synchronize()"
    )
    # (a) no wait: the device sees the overwrite (zero-copy, as documented).
    overwritten = expected_tensor(data, dtype)
    if data.numel() == 0 or torch.equal(_bits(overwritten), _bits(original)):
        return
    busy(busy_ms, device)
    result = call_valid("snapshot", target, data, kwargs)
    mutate(data)  # back to the original values while the copy is still queued
    synchronize()
    if not torch.equal(_bits(result.cpu()), _bits(original)):
        fail(
            "snapshot",
            "a pinned dense input overwritten before its queued copy ran did not reach the device: "
            "the target copies pinned inputs again (not zero-copy), contrary to the documented behaviour",
            got="the values from before the overwrite",
            expected="the overwritten values",
            call=call,
        )


def _bits(t: torch.Tensor) -> torch.Tensor:
    # flattened first: a contiguous tensor whose last dimension has size 1 may keep a stride
    # other than 1 there, and view() to a narrower dtype refuses it (H200, seed 1: a transposed
    # pinned int16 input of prop_pinned_hazard)
    return t.contiguous().reshape(-1).view(torch.uint8) if t.numel() else t


@check("snapshot")
def check_buffer_hazard(
    target: Target, spec: dict[str, Any], device: torch.device, values: torch.Tensor, n: int, *, busy_ms: float = 50.0
) -> None:
    """snapshot (CpuGpuBuffer): rows written to ``.cpu`` after ``copy_to_gpu(n)`` reach ``.gpu`` unless waited for.

    (a) documented wait (current stream synchronize) then overwrite: ``.gpu[:n]`` keeps
    the copied values; (b) overwrite with no wait while the copy is queued: the
    device sees the new values (the documented hazard; ``.cpu`` is not snapshotted).
    """
    requires_cuda(target, "snapshot", device)
    target.require("buffer", "snapshot")
    buffer = make_buffer(target, spec, device)
    buffer.cpu.copy_(values)
    call = f"{repr_spec(spec, device, target.buffer_name)}.copy_to_gpu({n})"
    bits = buffer.cpu.view(torch.uint8)
    mask = 1 if buffer.cpu.dtype is torch.bool else 0x5A
    synchronize()
    original = buffer.cpu[:n].clone()
    busy(busy_ms, device)
    view = buffer.copy_to_gpu(n)
    torch.cuda.current_stream(device).synchronize()
    bits ^= mask
    synchronize()
    assert_same_values(
        view, original, contract="snapshot", call=call + "  # .cpu overwritten after current_stream().synchronize()"
    )
    if n == 0 or buffer.cpu[0].numel() == 0:
        return
    busy(busy_ms, device)
    view = buffer.copy_to_gpu(n)
    bits ^= mask  # rows rewritten while the copy is still queued behind the busy stream
    overwritten = buffer.cpu[:n].clone()
    synchronize()
    if not torch.equal(_bits(view.cpu()), _bits(overwritten)):
        fail(
            "snapshot",
            "rows of .cpu overwritten before the queued copy ran did not reach .gpu: the documented hazard (and zero-copy) does not hold",
            got="earlier values",
            expected="the overwritten values",
            call=call,
        )


@check("stream")
def check_stream_out(
    target: Target, data: Any, kwargs: dict[str, Any], *, current_device: int | None = None, busy_ms: float = 50.0
) -> None:
    """stream: the copy into ``out`` is ordered on the *current* stream of ``out``'s device.

    On a side stream ``s``: queue spin work, then a fill of ``out`` with a sentinel, then
    the call. On ``s`` the order is spin, fill, copy: ``out`` ends with the data. A copy
    put on another stream runs first and the fill overwrites it. With
    ``current_device`` set, the call is made while another device is current (the
    target device's current stream must still be used).
    """
    target.require("out", "stream")
    out = kwargs["out"]
    device = out.device
    requires_cuda(target, "stream", device)
    call = target.describe_call(data, kwargs) + "  # under torch.cuda.stream(side stream)"
    expected = expected_tensor(data, resolve_dtype(data, kwargs))
    side = torch.cuda.Stream(device)
    synchronize()
    with torch.cuda.stream(side):
        busy(busy_ms, device)
        out.view(torch.uint8).fill_(0x7B) if out.element_size() == 1 else out.fill_(123)
        if current_device is None:
            result = call_valid("stream", target, data, kwargs)
        else:
            with torch.cuda.device(current_device):
                result = call_valid("stream", target, data, kwargs)
    synchronize()
    assert_same_values(result, expected, contract="stream", call=call)


@check("stream", valid_call=True)
def check_stream_no_out(target: Target, data: Any, kwargs: dict[str, Any], *, busy_ms: float = 200.0) -> None:
    """stream: without ``out``, the copy runs on the current (side) stream, not behind the busy default stream.

    The default stream is kept busy; the call is made under a side stream ``s``; after
    ``s.synchronize()`` (the default stream still busy) the result must already hold
    the data. The result's memory is pre-poisoned through the caching allocator so a
    copy still queued elsewhere shows as poison.
    """
    device = resolve_device(kwargs)
    requires_cuda(target, "stream", device)
    call = target.describe_call(data, kwargs) + "  # under torch.cuda.stream(side stream)"
    expected = expected_tensor(data, resolve_dtype(data, kwargs))
    if expected.numel() == 0:
        return
    side = torch.cuda.Stream(device)
    synchronize()
    with torch.cuda.stream(side):
        poison = torch.full((expected.numel() * expected.element_size(),), 0x7B, dtype=torch.uint8, device=device)
        del poison
    done = busy(busy_ms, device)  # on the default stream of device
    with torch.cuda.stream(side):
        result = call_valid("stream", target, data, kwargs)
        side.synchronize()
        if done.query():
            synchronize()
            raise NotApplicable(
                f"stream: inconclusive, the {busy_ms:.0f} ms busy period ended before the call returned"
            )
        seen = result.to("cpu")  # a D2H on the side stream, ordered after the side stream's H2D only
        torch.cuda.current_stream(device).synchronize()
    synchronize()
    assert_same_values(
        seen, expected, contract="stream", call=call + "  # read on the side stream while the default stream was busy"
    )


# --------------------------------------------------------------------------- device-hygiene

#: Run in a fresh interpreter by :func:`check_device_hygiene`: every entry point of the
#: target aimed at one CUDA device, then what the other devices hold. Nothing before the
#: calls touches CUDA beyond counting devices (no pinned-memory probe: the kit's own
#: probe would allocate under the current device and create the very context looked for).
_HYGIENE_SCRIPT = r"""
import json, sys
import numpy as np
import torch
from h2d_contracts.contracts.targets import load_target

spec, index = sys.argv[1], int(sys.argv[2])
dev = torch.device("cuda", index)
target = load_target(spec)
steps = []

def step(call, fn):
    try:
        fn()
        steps.append([call, None])
    except Exception as exc:  # a call that fails is reported, and the others still run
        steps.append([call, f"{type(exc).__name__}: {exc}"])

step(f"async_tensor_h2d([1, 2, 3], device='cuda:{index}')", lambda: target.async_tensor_h2d([1, 2, 3], device=f"cuda:{index}"))
step(f"async_tensor_h2d(np.arange(4096, dtype=np.float32), device=torch.device('cuda', {index}))", lambda: target.async_tensor_h2d(np.arange(4096, dtype=np.float32), device=dev))
step(f"async_tensor_h2d(torch.arange(4096).t(), device={index})", lambda: target.async_tensor_h2d(torch.arange(4096).view(64, 64).t(), device=index))
if "out" in target.capabilities:
    out = torch.empty(3, dtype=torch.int64, device=dev)  # the contract's own allocation, on the target device
    step(f"async_tensor_h2d([1, 2, 3], out=torch.empty(3, dtype=torch.int64, device='cuda:{index}'))", lambda: target.async_tensor_h2d([1, 2, 3], out=out))
if "buffer" in target.capabilities:
    def buffer_ops():
        buf = target.buffer_cls(8, 4, dtype=torch.float32, device=dev, pin_memory=True)
        buf.cpu.fill_(1.0)
        buf.copy_to_gpu(5)
        buf.copy_to_cpu(5)
    step(f"CpuGpuBuffer(8, 4, dtype=torch.float32, device='cuda:{index}', pin_memory=True); .copy_to_gpu(5); .copy_to_cpu(5)", buffer_ops)
torch.cuda.synchronize(dev)
others = [j for j in range(torch.cuda.device_count()) if j != index]
contexts = {j: bool(torch._C._cuda_hasPrimaryContext(j)) for j in others}
allocated = {j: int(torch.cuda.memory_allocated(j)) for j in others}
print("H2D-HYGIENE " + json.dumps({"steps": steps, "contexts": contexts, "allocated": allocated}))
"""


@check("device-hygiene")
def check_device_hygiene(target: Target, index: int, *, timeout_s: float = 240.0) -> dict[str, Any]:
    """device-hygiene: calls aimed at ``cuda:index`` create no CUDA context and allocate nothing on any other device.

    Runs :data:`_HYGIENE_SCRIPT` in a fresh interpreter (a context, once created, stays for
    the life of the process, so only a fresh one can tell): the target is loaded there
    from ``target.spec`` (its ``--h2d-impl`` string), then ``async_tensor_h2d`` on a
    list, an array and a strided tensor with ``device=`` spelled three ways, into an
    ``out`` on ``cuda:index``, and a pinned ``CpuGpuBuffer`` on ``cuda:index`` with both
    copies. Then, for every other device, ``torch._C._cuda_hasPrimaryContext(j)`` must be
    False and ``torch.cuda.memory_allocated(j)`` 0. Returns the script's findings.

    Source: a 2x H200 run in which the reference made a context on ``cuda:0`` when
    asked only for ``cuda:1`` (on a multi-GPU server every worker then holds memory on
    GPU 0).

    Raises:
        NotApplicable: fewer than two CUDA devices, or a target built in-process (no spec).
        ContractViolation: ``device-hygiene``, naming the calls made and the device touched.
    """
    if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
        raise NotApplicable("device-hygiene needs 2 CUDA devices")
    if not target.spec:
        raise NotApplicable(
            f"device-hygiene loads the target in a fresh process by its --h2d-impl spec; target {target.name!r} has none"
        )
    found: dict[str, Any] = run_fresh(
        "device-hygiene", _HYGIENE_SCRIPT, [target.spec, str(index)], "H2D-HYGIENE ", timeout_s=timeout_s
    )
    calls = "; ".join(c for c, _ in found["steps"])
    touched = {
        j: (found["contexts"][j], found["allocated"][j])
        for j in found["contexts"]
        if found["contexts"][j] or found["allocated"][j]
    }
    if touched:
        fail(
            "device-hygiene",
            f"calls aimed at cuda:{index} touched other devices (fresh process)",
            got=", ".join(
                f"cuda:{j}: {'a CUDA context' if ctx else 'no context'}, {mem} bytes allocated"
                for j, (ctx, mem) in touched.items()
            ),
            expected="no context and 0 bytes on every other device",
            call=calls,
        )
    return found


# --------------------------------------------------------------------------- properties


@prop("staging")
def prop_staging(target: Target, device: torch.device, **overrides: Any) -> None:
    """staging: no "Pageable -> Device" memcpy for any input kind, layout, pinned or not, with or without out."""
    requires_cuda(target, "staging", device)

    def body(data: st.DataObject) -> None:
        call = data.draw(
            hs.h2d_calls(
                device,
                inputs=target.inputs,
                requires=target.requires,
                out=None if "out" in target.capabilities else False,
            ),
            label="call",
        )
        check_staging(target, call.data, call.kwargs)

    run_given(body, overrides, cap=25)


@prop("staging")
def prop_staging_strided_pinned(target: Target, device: torch.device, **overrides: Any) -> None:
    """staging: a strided pinned view (e.g. a column slice of a pinned 2-D buffer) is not DMA'd from pageable memory."""
    requires_cuda(target, "staging", device)

    def body(data: st.DataObject) -> None:
        layout = data.draw(st.sampled_from(["transposed", "sliced", "expanded"]), label="layout")
        t = data.draw(
            hs.cpu_tensors(shape=hs.shapes(min_dims=2, min_side=2), pinned=True, layout=layout), label="pinned view"
        )
        check_staging(target, t, {"device": device})

    run_given(body, overrides, cap=15)


#: Tensor layouts whose elements fill their bytes (a permutation of contiguous): a pinned
#: input in one of them is DMA'd as it lies, never staged again (docs/reference.md: an already
#: pinned input is not copied again); the staging and snapshot contracts draw them.
DENSE_LAYOUTS = ("contiguous", "transposed", "channels_last")


#: Dense permutations of two to four dimensions, every side >= 2, as a table: random shapes
#: rarely have three sides > 1, and a density rule that holds for two dimensions only
#: (``expected = size`` for ``expected *= size``) survived them in the GPU mutation
#: run.
DENSE_PERMUTED_TABLE = (
    ((5, 3), "transposed"),
    ((2, 3, 4), "transposed"),
    ((2, 3, 4, 5), "transposed"),
    ((2, 3, 4, 5), "channels_last"),
)


@prop("staging")
def prop_pinned_not_restaged(target: Target, device: torch.device, **overrides: Any) -> None:
    """staging: a pinned, dense input (contiguous, transposed, channels-last) of the target dtype is not copied again."""
    requires_cuda(target, "staging", device)
    for shape, layout in DENSE_PERMUTED_TABLE:
        t = hs.tensor_in_layout(torch.arange(math.prod(shape), dtype=torch.float32).view(shape), layout, pinned=True)
        check_pinned_not_restaged(target, t, {"device": device})

    def body(data: st.DataObject) -> None:
        layout = data.draw(st.sampled_from(DENSE_LAYOUTS), label="layout")
        t = data.draw(
            hs.cpu_tensors(shape=hs.shapes(min_dims=1, min_side=1), pinned=True, layout=layout), label="pinned tensor"
        )
        check_pinned_not_restaged(target, t, {"device": device})

    run_given(body, overrides, cap=10)


#: Payload sizes for the non-blocking contract: blocking was measured from 4 MB up on an H200 (docs/reference.md).
NON_BLOCKING_BYTES = (4 << 20, 16 << 20, 64 << 20)
#: The payload kinds of the non-blocking contract -> the input kind each is (the target's domain decides which run).
NON_BLOCKING_KINDS = {
    "pageable": "tensor",
    "pinned": "tensor",
    "pinned-transposed": "tensor",
    "pinned-column-slice": "tensor",
    "ndarray": "ndarray",
}


@prop("non-blocking")
def prop_non_blocking(target: Target, device: torch.device, **overrides: Any) -> None:
    """non-blocking: 4-64 MB tensors (pageable, pinned, pinned transposed, strided pinned) and arrays, with and without out, return at once."""
    requires_cuda(target, "non-blocking", device)
    import numpy as np

    kinds = [
        k
        for k, needs in NON_BLOCKING_KINDS.items()
        if needs in accepted(target, sorted(set(NON_BLOCKING_KINDS.values())), "non-blocking")
    ]

    def body(data: st.DataObject) -> None:
        nbytes = data.draw(st.sampled_from(NON_BLOCKING_BYTES), label="bytes")
        kind = data.draw(st.sampled_from(kinds), label="kind")
        n = nbytes // 4
        if kind == "ndarray":
            payload: Any = np.arange(n, dtype=np.int32)
        elif kind == "pinned-column-slice":
            payload = torch.arange(2 * n, dtype=torch.int32).pin_memory().view(-1, 2)[:, 0]
        elif kind == "pinned-transposed":
            # dense in a permutation: DMA'd as it lies, so no host pass may be needed (a
            # blocking .to() on this path survived the GPU mutation run)
            payload = torch.arange(n, dtype=torch.int32).pin_memory().view(2, n // 2).t()
        else:
            payload = torch.arange(n, dtype=torch.int32)
            payload = payload.pin_memory() if kind == "pinned" else payload
        kwargs: dict[str, Any] = {"device": device}
        if "out" in target.capabilities and data.draw(st.booleans(), label="with out"):
            kwargs = {"out": torch.empty(tuple(np.shape(payload)), dtype=torch.int32, device=device)}
        check_non_blocking(target, payload, kwargs)

    run_given(body, overrides, cap=8, timed=True)


@prop("non-blocking")
def prop_buffer_non_blocking(target: Target, device: torch.device, **overrides: Any) -> None:
    """non-blocking: CpuGpuBuffer.copy_to_gpu(n) / copy_to_cpu(n) (n given or None) of 4-64 MB of pinned rows return at once."""
    requires_cuda(target, "non-blocking", device)
    target.require("buffer", "non-blocking")

    def body(data: st.DataObject) -> None:
        nbytes = data.draw(st.sampled_from(NON_BLOCKING_BYTES), label="bytes")
        rows = nbytes // 4096
        spec = {"size": (rows, 1024), "dtype": torch.int32, "pin_memory": True, "with_numpy": False}
        # n=None: copy_to_gpu() / copy_to_cpu() of every row, a path of its own (its blocking copies
        # survived the GPU mutation run while only n=int was drawn)
        n = data.draw(st.sampled_from([None, rows, rows // 2]), label="n")
        for direction in ("copy_to_gpu", "copy_to_cpu"):  # both, every example: neither may be left unchecked
            check_buffer_non_blocking(target, spec, device, n, direction)

    run_given(body, overrides, cap=6, timed=True)


@prop("snapshot")
def prop_snapshot(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: staged sources (lists, arrays, pageable or strided tensors) can be overwritten right after the call."""
    requires_cuda(target, "snapshot", device)

    def body(data: st.DataObject) -> None:
        call = data.draw(
            hs.h2d_calls(
                device,
                inputs=target.inputs,
                requires=target.requires,
                out=None if "out" in target.capabilities else False,
                shape=hs.shapes(min_dims=1, min_side=1),
            ),
            label="call",
        )
        if not staged_kind(call.data, call.kwargs):
            call.data = call.data.t() if call.data.dim() == 2 and min(call.data.shape) > 1 else call.data.cpu().clone()
            if not staged_kind(call.data, call.kwargs):
                call.data = call.data.clone()  # pageable
        check_snapshot(target, call.data, call.kwargs)

    run_given(body, overrides, cap=15)


#: Pinned inputs that need a dtype conversion (host work), in layouts with and without gaps.
CONVERTED_PINNED_CASES = ("uint8-as-bool", "int32-as-float32", "int32-column-view-with-gaps-as-float32")


@prop("snapshot")
def prop_snapshot_converted_pinned(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: a pinned input that needs a dtype conversion is staged, so overwriting it right after the call changes nothing (a table).

    vLLM 0.33.0 converts on the device from the pinned source (found by the random
    property on 2x H200; this table makes it a fixed regression). A pinned input of the
    target dtype is not in the table: it may be DMA'd from its own memory, the documented
    hazard (:func:`check_pinned_hazard`).
    """
    requires_cuda(target, "snapshot", device)
    accepted(target, ["tensor"], "snapshot")
    del overrides  # deterministic: every row every run
    if not target.pin_memory_available():
        raise NotApplicable("snapshot of converted pinned inputs: the target reports pinned memory unavailable")
    n = 1 << 16
    rows = Rows("converted pinned inputs")
    for case in CONVERTED_PINNED_CASES:
        if case == "uint8-as-bool":
            data, kwargs = (
                (torch.arange(n, dtype=torch.int64) % 3 == 0).to(torch.uint8).pin_memory(),
                {"device": device, "dtype": torch.bool},
            )
        elif case == "int32-as-float32":
            data, kwargs = (
                (torch.arange(n, dtype=torch.int32) - 7).pin_memory(),
                {"device": device, "dtype": torch.float32},
            )
        else:
            data, kwargs = (
                torch.arange(2 * n, dtype=torch.int32).view(256, 512).pin_memory()[:, ::2],
                {"device": device, "dtype": torch.float32},
            )
        rows.row(check_snapshot, target, data, kwargs)
    rows.finish()


@prop("snapshot")
def prop_back_to_back(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: two calls queued behind a busy stream both land intact (no staging buffer reused too early).

    Drawn calls (small lists and arrays) and, one draw in two, a 1 or 8 MiB array: staging
    pools often serve large payloads from other blocks than small ones (the reference: a
    shared chunk up to 256 KiB, whole blocks above), and a block reused while its copy is
    queued shows only with a payload that takes one.
    """
    requires_cuda(target, "snapshot", device)
    import numpy as np

    def body(data: st.DataObject) -> None:
        large = data.draw(
            st.sampled_from([0, 1 << 20, 8 << 20]) if data.draw(st.booleans(), label="large") else st.just(0),
            label="large payload bytes",
        )
        if large:
            check_back_to_back(target, np.arange(large // 4, dtype=np.int32), {"device": device})
            return
        call = data.draw(
            hs.h2d_calls(
                device,
                inputs=target.inputs,
                requires=target.requires,
                kinds=("list", "ndarray"),
                out=None if "out" in target.capabilities else False,
                shape=hs.shapes(min_dims=1, min_side=1),
            ),
            label="call",
        )
        check_back_to_back(target, call.data, call.kwargs)

    run_given(body, overrides, cap=10, timed=True)


@prop("snapshot")
def prop_pinned_hazard(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: for pinned inputs the documented hazard is real and the documented wait makes them safe."""
    requires_cuda(target, "snapshot", device)

    def body(data: st.DataObject) -> None:
        layout = data.draw(st.sampled_from(DENSE_LAYOUTS), label="layout")
        t = data.draw(
            hs.cpu_tensors(
                dtype=hs.torch_dtypes(exclude=(torch.bool,)),
                shape=hs.shapes(min_dims=1, min_side=1),
                pinned=True,
                layout=layout,
            ),
            label="pinned tensor",
        )
        check_pinned_hazard(target, t, {"device": device})

    run_given(body, overrides, cap=8)


@prop("snapshot")
def prop_buffer_hazard(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: CpuGpuBuffer.cpu rows overwritten after copy_to_gpu(n): safe after the documented wait only."""
    requires_cuda(target, "snapshot", device)
    target.require("buffer", "snapshot")

    def body(data: st.DataObject) -> None:
        spec = {**data.draw(hs.buffer_specs(), label="buffer"), "pin_memory": True}
        spec["size"] = (max(spec["size"][0], 1), *spec["size"][1:])
        values = data.draw(buffer_values(spec["dtype"], spec["size"]), label="values")
        n = data.draw(st.integers(1, spec["size"][0]), label="n")
        check_buffer_hazard(target, spec, device, values, n)

    run_given(body, overrides, cap=8)


@prop("stream")
def prop_stream(target: Target, device: torch.device, **overrides: Any) -> None:
    """stream: the copy is ordered on the current stream (side stream), with and without out."""
    requires_cuda(target, "stream", device)

    def body(data: st.DataObject) -> None:
        use_out = "out" in target.capabilities and data.draw(st.booleans(), label="with out")
        call = data.draw(
            hs.h2d_calls(
                device,
                inputs=target.inputs,
                requires=target.requires,
                out=use_out,
                shape=hs.shapes(min_dims=1, min_side=1),
            ),
            label="call",
        )
        if use_out:
            check_stream_out(target, call.data, call.kwargs)
        else:
            check_stream_no_out(target, call.data, call.kwargs)

    run_given(body, overrides, cap=10)


@prop("stream")
def prop_cross_device(target: Target, device: torch.device, **overrides: Any) -> None:
    """stream: a non-current device's index and current stream are honoured (device="cuda:1", out on cuda:1)."""
    requires_cuda(target, "stream", device)
    if torch.cuda.device_count() < 2:
        raise NotApplicable(
            f"stream: cross-device contract needs 2 CUDA devices, this machine has {torch.cuda.device_count()}"
        )
    current = device.index
    other = torch.device("cuda", (current + 1) % torch.cuda.device_count())

    def body(data: st.DataObject) -> None:
        with torch.cuda.device(current):
            call = data.draw(
                hs.h2d_calls(other, inputs=target.inputs, requires=target.requires, out=False, pass_device=True),
                label="call",
            )
            check_values(target, call.data, call.kwargs)
            if "out" in target.capabilities:
                call = data.draw(
                    hs.h2d_calls(
                        other,
                        inputs=target.inputs,
                        requires=target.requires,
                        out=True,
                        shape=hs.shapes(min_dims=1, min_side=1),
                    ),
                    label="out call",
                )
                check_stream_out(target, call.data, call.kwargs, current_device=current)

    run_given(body, overrides, cap=10)


@prop("device-hygiene")
def prop_device_hygiene(target: Target, device: torch.device, **overrides: Any) -> None:
    """device-hygiene: calls aimed at a non-primary CUDA device touch no other device (a fresh process; 2 GPUs).

    Not a Hypothesis property: one fixed set of calls in a fresh interpreter
    (:func:`contracts.gpu.check_device_hygiene`); ``overrides`` are ignored. Aims at
    ``device``'s index when it is not 0, else at ``cuda:1``.
    """
    del overrides
    requires_cuda(target, "device-hygiene", device)
    index = device.index if device.index else 1
    check_device_hygiene(target, index)
