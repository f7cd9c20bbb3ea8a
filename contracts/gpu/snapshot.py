"""The snapshot contract: the result holds the data as it was at the call, whatever the host writes after it returns."""

from __future__ import annotations

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
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable, fail

from ..bad_input import device_spellings
from ..buffer import buffer_values, make_buffer, repr_spec
from .staging import DENSE_LAYOUTS, staged_kind
from .timing import (
    _bits,
    busy,
    calls_behind_queued_work,
    filler_kind,
    filler_kwargs,
    int32_filler,
    requires_cuda,
)


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


#: CUDA's ``cudaStreamPerThread`` handle: ``torch.cuda.ExternalStream(PER_THREAD_STREAM)`` is one handle that names a
#: different stream in each thread (an event recorded on it lands on the recording thread's own stream).
PER_THREAD_STREAM = 2


@check("snapshot", valid_call=True)
def check_per_thread_streams(target: Target, data: Any, kwargs: dict[str, Any], *, calls: int = 48) -> None:
    """snapshot on cudaStreamPerThread: a call queued on one thread's per-thread stream behind about a second of spin
    work lands intact while a second thread, on its own per-thread stream, makes ``calls`` calls of 65,536 int32 (a
    tensor, else an array, else a list: what the target takes), each synchronized, so that a staging pool cycles
    through every buffer it holds.

    A pool that tells streams apart by their raw handle (2 for every thread), or records a buffer's completion event
    from the thread that closes it (on that thread's stream), hands the first call's staged bytes to the second
    thread: on an H100 the reference before its fix delivered the second thread's values (docs/contracts.md). Both
    threads warm up first (the first thread with one call of other values; the second with 12 calls queued behind
    50 ms of spin), and the target's ``empty_cache`` runs before (where it has one), so that no allocation during
    the second thread's calls waits for the device and a pool's buffers are this check's alone.

    Raises:
        NotApplicable: the spin work ended before the second thread's calls did (the case was not exercised).
    """
    import threading

    device = resolve_device(kwargs)
    requires_cuda(target, "snapshot", device)
    if not staged_kind(data, kwargs):
        raise ValueError(
            "check_per_thread_streams is for staged inputs; a pinned input of the target dtype is read in place"
        )
    kind = filler_kind(target)
    n_b = (256 << 10) // 4
    call = target.describe_call(data, kwargs)
    expected = expected_tensor(data, resolve_dtype(data, kwargs))
    b_kwargs = filler_kwargs(target, device)
    per_thread = torch.cuda.ExternalStream(PER_THREAD_STREAM, device=device)
    synchronize()
    if target.empty_cache is not None:
        target.empty_cache()
    ready, go = threading.Event(), threading.Event()
    b_results: list[tuple[int, torch.Tensor]] = []
    b_errors: list[BaseException] = []

    def b_calls(base: int, count: int, *, sync_each: bool) -> None:
        for i in range(count):
            b_results.append((base + i, call_valid("snapshot", target, int32_filler(kind, base + i, n_b), b_kwargs)))
            if sync_each:
                torch.cuda.current_stream(device).synchronize()
        torch.cuda.current_stream(device).synchronize()

    def thread_b() -> None:
        try:
            with torch.cuda.stream(per_thread):
                busy(50.0, device)  # the warm-up's calls are all queued behind it
                b_calls(100, 12, sync_each=False)
                ready.set()
                go.wait(300)
                b_calls(1000, calls, sync_each=True)
        except BaseException as exc:  # noqa: BLE001 - raised on the calling thread below
            b_errors.append(exc)
        finally:
            ready.set()

    worker = threading.Thread(target=thread_b, name="h2d-contracts-per-thread-B", daemon=True)
    worker.start()
    with torch.cuda.stream(per_thread):
        ready.wait(300)
        call_valid("snapshot", target, _complement(data), kwargs)  # this thread's warm-up, other values
        torch.cuda.current_stream(device).synchronize()
        spin = busy(1000.0, device)  # a run where it ends before the other thread's calls is not applicable
        try:
            result = call_valid("snapshot", target, data, kwargs)
        finally:
            go.set()
            worker.join()
        still_queued = not spin.query()
        torch.cuda.current_stream(device).synchronize()
    if b_errors:
        raise b_errors[0]
    for value, got in b_results:
        assert_same_values(
            got,
            torch.full((n_b,), value, dtype=torch.int32),
            contract="snapshot",
            call=f"f(<{n_b} int32 of {value} as a {kind}>, device={str(device)!r})  # on a second thread's per-thread stream",
        )
    if not still_queued:
        raise NotApplicable(
            "contract 'snapshot' on per-thread streams: the spin work ended before the second thread's calls did"
        )
    assert_same_values(
        result,
        expected,
        contract="snapshot",
        call=call
        + "  # on cudaStreamPerThread behind spin work, while a second thread's calls ran on its own per-thread stream",
    )


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


@prop("snapshot", cap=15)
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

    run_given(body, overrides)


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


@prop("snapshot", cap=10, timed=True)
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

    run_given(body, overrides)


@prop("snapshot", table=True)
def prop_back_to_back_idle(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: two 8 MiB, then two 64 MiB staged calls back to back on an idle stream both land intact (a table).

    Behind busy work a staging block's completion event cannot pass before its copy has
    run, whatever order the two were queued in; on an idle stream it can: a pool that
    records the block's event before queueing its DMA hands the block to the second call
    while the first copy still reads it (an outside round's bug: 20 of 20 back-to-back
    8 MiB and 64 MiB pairs corrupted on an H200, none at 1 MiB).
    """
    requires_cuda(target, "snapshot", device)
    del overrides
    rows = Rows("back-to-back on an idle stream")
    for nbytes in (8 << 20, 64 << 20):
        rows.row(check_back_to_back, target, np.arange(nbytes // 4, dtype=np.int32), {"device": device}, busy_ms=0.0)
    rows.finish()


@prop("snapshot", table=True)
def prop_per_thread_streams(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot on cudaStreamPerThread (a table): four calls of 7s, each on one thread's per-thread stream behind
    spin work while a second thread's calls run on its own (:func:`check_per_thread_streams`): a list of 4 ints, an
    int32 array and a float32 tensor of 4 (a small-payload pool's shared buffer), a 1 MiB int32 array and a list of
    262,144 ints (a large one)."""
    requires_cuda(target, "snapshot", device)
    del overrides  # deterministic: every row every run
    rows = Rows("calls on two threads' per-thread streams")
    for data in (
        [7, 7, 7, 7],
        np.full(4, 7, dtype=np.int32),
        torch.full((4,), 7.0),
        np.full((1 << 20) // 4, 7, dtype=np.int32),
        [7] * (1 << 18),
    ):
        rows.row(check_per_thread_streams, target, data, {"device": device})
    rows.finish()


@prop("snapshot", cap=8)
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

    run_given(body, overrides)


@prop("snapshot", cap=8)
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

    run_given(body, overrides)


@check("snapshot")
def check_buffer_fresh_behind_busy(target: Target, device: torch.device, rows: int, *, busy_ms: float = 50.0) -> None:
    """snapshot (CpuGpuBuffer, CUDA): a buffer made while the stream is busy, its ``.cpu`` filled right after and
    ``copy_to_gpu(1)`` sent: ``.gpu`` row 0 holds the fill and rows 1.. stay zero.

    A constructor that fills ``.gpu`` with a non-blocking copy of the freshly zeroed pinned
    ``.cpu`` leaves that copy queued behind the busy work, and the host's first fill
    (the engine's first step) leaks into rows no ``copy_to_gpu`` sent (an outside round's bug).
    """
    requires_cuda(target, "snapshot", device)
    target.require("buffer", "snapshot")
    spec = {"size": (rows,), "dtype": torch.int32, "pin_memory": True, "with_numpy": True}
    call = (
        f"<stream busy {busy_ms:.0f} ms>; buf = {repr_spec(spec, device, target.buffer_name)}; "
        "buf.cpu.fill_(7); buf.copy_to_gpu(1)"
    )
    synchronize()
    busy(busy_ms, device)
    buffer = make_buffer(target, spec, device)
    buffer.cpu.fill_(7)
    buffer.copy_to_gpu(1)
    synchronize()
    got = buffer.gpu.detach().to("cpu")
    if int(got[0]) != 7 or bool((got[1:] != 0).any()):
        fail(
            "snapshot",
            "a buffer made behind a busy stream, .cpu filled right after construction, copy_to_gpu(1)",
            got=f".gpu[:4] = {got[:4].tolist()} (rows the call never sent hold the fill)",
            expected="[7, 0, 0, ...]: .gpu zero-initialised on the device, only row 0 copied",
            call=call,
        )


@check("snapshot")
def check_queued_past_cap(
    target: Target, device: torch.device, nbytes: int, count: int, *, busy_ms: float = 1000.0
) -> None:
    """snapshot (CUDA): ``count`` calls of ``nbytes`` each (distinct values) queued back to back behind a busy
    stream, more than a staging pool's cap: every result holds its own call's values.

    A pool past its cap waits for its oldest block and must then reuse that block; reusing
    any other (the newest, still queued) lets the next host copy overwrite bytes a queued
    DMA has not read yet (an outside round's bug). The queued work must outlast the host
    copies of the first ``count - 1`` calls (read off its event), or the pool finds its
    blocks done and never waits: the work is doubled up to twice until it does, else the
    row is not applicable on this host (with the reason).
    """
    requires_cuda(target, "snapshot", device)
    target.require_input("ndarray", "snapshot")
    payloads = [np.full(nbytes // 4, k + 1, dtype=np.int32) for k in range(count)]
    results, work, _ = calls_behind_queued_work("snapshot", target, device, payloads, busy_ms)
    for k, r in enumerate(results):
        got = r.detach().view(-1)
        if not bool((got == k + 1).all()):
            wrong = int(torch.nonzero(got != k + 1)[0].item())
            fail(
                "snapshot",
                f"call {k} of {count} back-to-back {nbytes >> 20} MiB calls queued behind a busy stream",
                got=f"element {wrong} is {int(got[wrong])} (another call's values)",
                expected=f"every element {k + 1}",
                call=f"<stream busy {work:.0f} ms>; [f(np.full({nbytes // 4}, k + 1, np.int32), device={str(device)!r}) "
                f"for k in range({count})]",
            )


#: (payload bytes, calls): 5 x 256 MiB queued is past the reference's 1 GiB staging cap (docs/reference.md), so its
#: pool waits for its oldest block; 24 x 1 MiB keeps many blocks of one size class in flight
QUEUED_PAST_CAP = ((256 << 20, 5), (1 << 20, 24))


@prop("snapshot", table=True)
def prop_buffer_fresh(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: buffers of 1, 1,024 and 2**20 rows made behind a busy stream, filled at once (a table)."""
    requires_cuda(target, "snapshot", device)
    target.require("buffer", "snapshot")
    del overrides
    rows = Rows("buffer made behind a busy stream")
    for n in (2, 1024, 1 << 20):
        rows.row(check_buffer_fresh_behind_busy, target, device, n)
    rows.finish()


@prop("snapshot", table=True)
def prop_queued_past_cap(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: many large calls queued behind a busy stream, past a staging cap, each keeps its values (a table)."""
    requires_cuda(target, "snapshot", device)
    target.require_input("ndarray", "snapshot")
    del overrides
    rows = Rows("calls queued past a staging cap")
    for nbytes, count in QUEUED_PAST_CAP:
        rows.row(check_queued_past_cap, target, device, nbytes, count)
    rows.finish()


#: Pinned inputs of one element (and two): a target that sends a one-element pinned tensor as a fill of its value
#: (``torch.full(shape, x.item())``: no DMA) makes a hidden snapshot, which the drawn hazard property meets only
#: when its shapes come out at one element (an outside round's GPU bug, r45).
PINNED_SMALL_SHAPES = ((), (1,), (1, 1), (2,))
PINNED_SMALL_DTYPES = (
    torch.float32,
    torch.float16,
    torch.bfloat16,
    torch.float64,
    torch.int64,
    torch.int32,
    torch.uint8,
)


@prop("snapshot", table=True)
def prop_pinned_hazard_small(target: Target, device: torch.device, **overrides: Any) -> None:
    """snapshot: the documented hazard and wait for pinned inputs of 0-d, one and two elements of every common dtype
    (a table): the DMA reads the caller's pinned memory when it runs, so an overwrite before it reaches the device."""
    requires_cuda(target, "snapshot", device)
    target.require_input("tensor", "snapshot")
    del overrides  # deterministic: every row every run
    rows = Rows("pinned inputs of one and two elements")
    # Every spelling of the device in turn (row i takes spelling i mod their count; the one-element shapes meet each):
    # a target may route a spelling it has already resolved through a hot path of its own and every other one through
    # the general path, so a table sent under one spelling judges one of the two (the reference's fast path takes a
    # cached spelling; bare "cuda" and a numpy index take the general path: an outside round's GPU bug, r45, changed
    # the general path's zero-copy branch alone).
    spellings = device_spellings(device)
    for i, (dtype, shape) in enumerate((d, s) for d in PINNED_SMALL_DTYPES for s in PINNED_SMALL_SHAPES):
        values = torch.arange(1, 1 + int(np.prod(shape, dtype=np.int64)), dtype=torch.int64).reshape(shape)
        t = values.to(dtype).pin_memory()
        rows.row(check_pinned_hazard, target, t, {"device": spellings[i % len(spellings)]})
    rows.finish()
