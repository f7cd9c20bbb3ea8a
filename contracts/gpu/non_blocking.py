"""The non-blocking contract: a call returns while work queued before it still runs (judged by the stream's events)."""

from __future__ import annotations

import time
from typing import Any

import torch
from hypothesis import strategies as st

from h2d_contracts.harness.calling import call_valid, synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.oracle import assert_same_values, expected_tensor, resolve_device, resolve_dtype
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import accepted, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import fail

from ..buffer import make_buffer, repr_spec
from .timing import (
    BUSY_MS,
    _bits,
    _returns_while_busy,
    requires_cuda,
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


NON_BLOCKING_BYTES = (4 << 20, 16 << 20, 64 << 20)
#: The payload kinds of the non-blocking contract -> the input kind each is (the target's domain decides which run).
NON_BLOCKING_KINDS = {
    "pageable": "tensor",
    "pinned": "tensor",
    "pinned-transposed": "tensor",
    "pinned-column-slice": "tensor",
    "ndarray": "ndarray",
}


@prop("non-blocking", cap=8, timed=True)
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

    run_given(body, overrides)


@prop("non-blocking", cap=6, timed=True)
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

    run_given(body, overrides)
