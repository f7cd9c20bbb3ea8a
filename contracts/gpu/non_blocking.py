"""The non-blocking contract: a call returns while work queued before it still runs (judged by the stream's events)."""

from __future__ import annotations

import time
from typing import Any

import torch
from hypothesis import strategies as st

from h2d_contracts.harness.calling import call_valid, domain_kwargs, synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.oracle import assert_same_values, expected_tensor, resolve_device, resolve_dtype
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, accepted, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import KitError, NotApplicable, fail

from ..buffer import make_buffer, repr_spec
from .timing import (
    BUSY_MS,
    _bits,
    _returns_while_busy,
    busy,
    calls_behind_queued_work,
    cycles_per_ms,
    filler_kind,
    filler_kwargs,
    int32_filler,
    requires_cuda,
)


def _each_filled(results: list[torch.Tensor], first: int, where: str, call: str) -> None:
    """Fail non-blocking unless result ``k`` of ``results`` holds ``first + k`` in every element ("call ``k`` ``where``"
    in the message); read after a synchronize."""
    for k, got in enumerate(results):
        if not bool((got == first + k).all()):
            fail(
                "non-blocking",
                f"call {k} {where}",
                got="other values",
                expected=f"every element {first + k}",
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


#: Small calls made back to back behind queued work, on one stream: past 64, the number of 1 MiB small-payload
#: chunks the reference's staging pool retains (``SMALL_MAX_RETAINED_BYTES``, docs/reference.md): a pool that took
#: a chunk per call (a stale stream key, outside round r38) waits for the stream from the 65th call on.
SMALL_CALLS = 128


@check("non-blocking")
def check_small_calls_non_blocking(
    target: Target, device: torch.device, side_stream: bool, *, calls: int = SMALL_CALLS, busy_ms: float = BUSY_MS
) -> float:
    """non-blocking: ``calls`` small calls (two-element lists) back to back, on a side stream or the current one, all
    return while work queued before them still runs, and each result holds its own list.

    Engines issue many small copies a step (positions, slot mappings, sampling parameters), often
    on a stream of their own; a staging pool that runs out of reusable memory behind a busy stream
    and waits for it stalls the host as a blocking copy does. A warm-up round first on the idle
    stream, then the timed round behind calibrated work (as :func:`check_non_blocking`), judged by
    the stream's event. Returns the host time of the timed round in ms.

    Raises:
        ContractViolation: a round waited for the queued work both times, or a result differs.
    """
    requires_cuda(target, "non-blocking", device)
    payloads = [[k, k + 1] for k in range(calls)]
    kwargs = [domain_kwargs(target, p, {"device": device}) for p in payloads]
    where = "s = torch.cuda.Stream(); with torch.cuda.stream(s): " if side_stream else ""
    call = f"{where}[{target.describe_call([0, 1], kwargs[0]).replace('[0, 1]', '[k, k + 1]')} for k in range({calls})]"

    def round_of_calls() -> list[torch.Tensor]:
        return [call_valid("non-blocking", target, p, dict(kw)) for p, kw in zip(payloads, kwargs, strict=True)]

    stream = torch.cuda.Stream(device) if side_stream else torch.cuda.current_stream(device)
    with torch.cuda.stream(stream):
        synchronize()
        t0 = time.perf_counter()
        round_of_calls()
        warm_ms = (time.perf_counter() - t0) * 1e3
        synchronize()
        results, host_ms = _returns_while_busy(round_of_calls, device, busy_ms, warm_ms, f"{calls} small calls", call)
    for k, (p, r) in enumerate(zip(payloads, results, strict=True)):
        if r.detach().cpu().tolist() != p:
            fail(
                "non-blocking",
                f"small call {k} of {calls}: its result does not hold its own list",
                got=r.detach().cpu().tolist(),
                expected=p,
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


@prop("non-blocking", cap=2, timed=True)
def prop_small_calls_non_blocking(target: Target, device: torch.device, **overrides: Any) -> None:
    """non-blocking: 128 small calls back to back behind queued work, on a side stream or the current one."""
    requires_cuda(target, "non-blocking", device)
    target.require_input("list", "non-blocking")

    def body(data: st.DataObject) -> None:
        check_small_calls_non_blocking(target, device, data.draw(st.booleans(), label="side stream"))

    run_given(body, overrides)


#: Cycles of (a 64 MiB call, synchronize, ``empty_cache()``): 24 x 64 MiB = 1.5 GiB, past the reference's 1 GiB
#: staging cap (docs/reference.md), so a trim that under-counts what it releases drives the pool's books to the cap.
TRIM_CYCLES, TRIM_BYTES = 24, 64 << 20


@check("non-blocking")
def check_non_blocking_after_trims(
    target: Target,
    device: torch.device,
    *,
    cycles: int = TRIM_CYCLES,
    nbytes: int = TRIM_BYTES,
    busy_ms: float = BUSY_MS,
) -> float:
    """non-blocking: after ``cycles`` rounds of a call, ``synchronize()`` and the target's ``empty_cache()``, two
    calls behind queued work still return while it runs, and hold their values.

    Engines trim their caches between phases; a trim that frees the staging memory but
    keeps counting it (its books past the cap) makes the next calls behind a busy stream
    wait for it as if the pool were full (an outside round's bug). Returns the host time in ms.

    Raises:
        NotApplicable: the target has no ``empty_cache``.
        ContractViolation: the calls waited for the queued work both times, or a result differs.
    """
    requires_cuda(target, "non-blocking", device)
    target.require_input("ndarray", "non-blocking")
    if target.empty_cache is None:
        raise NotApplicable("contract 'non-blocking' after trims: the target has no empty_cache")
    import numpy as np

    first, second = (np.full(nbytes // 4, v, dtype=np.int32) for v in (1, 2))
    kwargs = {"device": device}
    for _ in range(cycles):
        call_valid("non-blocking", target, first, dict(kwargs))
        synchronize()
        target.empty_cache()
    one = f"np.full({nbytes // 4}, 1, np.int32)"
    call = (
        f"for _ in range({cycles}): f({one}, device={str(device)!r}); torch.cuda.synchronize(); empty_cache()\n"
        f"<stream busy>; f({one}, device={str(device)!r}); f({one.replace(', 1,', ', 2,')}, device={str(device)!r})"
    )

    def pair() -> list[torch.Tensor]:
        # each round trims first (no synchronize: the earlier round's copies have run), so the confirming round
        # starts from released staging as the first did
        target.empty_cache()  # type: ignore[misc]
        return [call_valid("non-blocking", target, x, dict(kwargs)) for x in (first, second)]

    synchronize()
    t0 = time.perf_counter()
    pair()
    warm_ms = (time.perf_counter() - t0) * 1e3
    synchronize()
    results, host_ms = _returns_while_busy(pair, device, busy_ms, warm_ms, "two calls after trims", call)
    synchronize()
    _each_filled(results, 1, "of two after trims", call)
    return host_ms


@prop("non-blocking", table=True, timed=True)
def prop_non_blocking_after_trims(target: Target, device: torch.device, **overrides: Any) -> None:
    """non-blocking: two 64 MiB calls behind queued work after 24 call/synchronize/empty_cache cycles (a table)."""
    requires_cuda(target, "non-blocking", device)
    target.require_input("ndarray", "non-blocking")
    del overrides
    rows = Rows("non-blocking after trims")
    rows.row(check_non_blocking_after_trims, target, device)
    rows.finish()


@check("non-blocking")
def check_cap_wait_for_oldest_copy(
    target: Target, device: torch.device, nbytes: int, count: int, *, busy_ms: float = 500.0
) -> None:
    """non-blocking (CUDA): ``count - 1`` calls of ``nbytes`` queued behind ``busy_ms`` of work fill a staging
    pool to its cap; then long work is queued after them, and one more call must wait at most for the *oldest*
    block's own copy, not for the work queued after it: it returns while that later work still runs.

    A pool at its cap waits for its oldest block's done event; waiting on that block's
    whole stream (``stream.synchronize()``) also waits for everything queued after the
    copy, an engine's next forward pass included (an outside round's GPU bug, r45). Read
    off events, not the host's clock: the first calls' work must still be queued when they
    return (doubled up to twice, else not applicable on this host), and the later work's
    event must not be done when the last call returns.
    """
    requires_cuda(target, "non-blocking", device)
    target.require_input("ndarray", "non-blocking")
    import numpy as np

    payloads = [np.full(nbytes // 4, k + 1, dtype=np.int32) for k in range(count)]
    results, work, later_running = calls_behind_queued_work(
        "non-blocking", target, device, payloads, busy_ms, later_ms=8 * busy_ms
    )
    if not later_running:
        fail(
            "non-blocking",
            f"a call past a staging cap ({count} x {nbytes >> 20} MiB) waited for the work queued after the oldest "
            "block's copy (the whole stream), not for that copy alone",
            got="returned after the later work had finished",
            expected="a return while the later work still runs (the oldest block's copy ran long before it)",
            call=f"<stream busy {work:.0f} ms>; [f(np.full({nbytes // 4}, k + 1, np.int32), device={str(device)!r}) "
            f"for k in range({count - 1})]; <stream busy {max(8 * busy_ms, 2 * work):.0f} ms>; f(np.full({nbytes // 4}, "
            f"{count}, np.int32), device={str(device)!r})",
        )
    _each_filled(
        results,
        1,
        f"of {count} calls past a staging cap",
        f"[f(np.full({nbytes // 4}, k + 1, np.int32), device={str(device)!r}) for k in range({count})]",
    )


@prop("non-blocking", table=True, timed=True)
def prop_cap_wait_for_oldest_copy(target: Target, device: torch.device, **overrides: Any) -> None:
    """non-blocking: a call past a staging cap waits for the oldest block's copy only, never for work queued after
    it (5 x 256 MiB, past the reference's 1 GiB cap; a table)."""
    requires_cuda(target, "non-blocking", device)
    target.require_input("ndarray", "non-blocking")
    del overrides
    rows = Rows("a call past a staging cap")
    rows.row(check_cap_wait_for_oldest_copy, target, device, 256 << 20, 5)
    rows.finish()


@check("non-blocking")
def check_idle_stream_never_waits_for_another(
    target: Target, device: torch.device, elements: int, calls: int, *, busy_ms: float = 2000.0
) -> None:
    """non-blocking (CUDA): one call of ``elements`` int32 (7s) on a side stream behind ``busy_ms`` of spin work, then
    ``calls`` calls of as many int32 (a tensor, else an array, else a list: what the target takes) on a second, idle side stream,
    each synchronized on that stream: none may wait for the first stream's work, and each result holds its own values.

    A staging pool whose search for a finished buffer stops at the oldest one still queued (on the busy stream) never
    reuses the idle stream's finished buffers: it pins a new one at each call until its cap, then waits for the
    oldest, behind the other stream's work (an outside round's GPU bug, r60 b06). The rows pass the reference's caps
    (64 MiB for small payloads, 1 GiB for a size class). Read off the busy stream's event: where it ended before the
    last call, the longest call decides: over a quarter of the work is a wait (a loaded host stretches a call of
    256 KiB or 4 MiB by milliseconds, not by half a second); else the host was too slow for the work, and the case
    runs once more behind four times as much (such a pool's mutant survived a run among 24 pytest workers on one
    H100, no row raising). Where that too ends first, the check is not applicable.

    Raises:
        ContractViolation: a call waited, or a result holds other values.
        NotApplicable: ``calls`` calls outlasted the work twice (``busy_ms``, then four times it).
    """
    requires_cuda(target, "non-blocking", device)
    slow = ""
    for work_ms in (busy_ms, 4 * busy_ms):
        slow = _idle_stream_case(target, device, elements, calls, work_ms)
        if not slow:
            return
    raise NotApplicable(f"non-blocking, idle stream: {slow}: this host is too slow for the check")


def _idle_stream_case(target: Target, device: torch.device, elements: int, calls: int, busy_ms: float) -> str:
    """One case of :func:`check_idle_stream_never_waits_for_another` behind ``busy_ms`` of work: returns "" where it
    passed, else why the host was too slow for it; raises its violations."""
    kind = filler_kind(target)
    kwargs = filler_kwargs(target, device)
    call = (
        f"s1, s2 = torch.cuda.Stream(), torch.cuda.Stream(); with torch.cuda.stream(s1): <spin {busy_ms:.0f} ms>; "
        f"f(<{elements} int32 of 7>, device={str(device)!r}); with torch.cuda.stream(s2): for k in range({calls}): "
        f"f(<{elements} int32 of k as a {kind}>, device={str(device)!r}); s2.synchronize()"
    )
    busy_stream, idle_stream = torch.cuda.Stream(device), torch.cuda.Stream(device)
    synchronize()
    if target.empty_cache is not None:
        target.empty_cache()
    with torch.cuda.stream(busy_stream):
        spin = busy(busy_ms, device)  # 4e9 cycles of _sleep in one piece measured 2,020 ms on an H100
        first = call_valid("non-blocking", target, int32_filler(kind, 7, elements), dict(kwargs))
    longest, longest_at, ended_at = 0.0, -1, None
    results = []
    with torch.cuda.stream(idle_stream):
        for k in range(calls):
            t0 = time.perf_counter()
            results.append(call_valid("non-blocking", target, int32_filler(kind, k, elements), dict(kwargs)))
            took = time.perf_counter() - t0
            if took > longest:
                longest, longest_at = took, k
            idle_stream.synchronize()
            # values are read after the loop: a device-to-host read of a result here (bool() of a tensor) waited for
            # the busy stream on an H100, which made every target's calls outlast the work
            if spin.query():
                ended_at = k
                break
    synchronize()
    _each_filled(results, 0, "on the idle stream", call)
    if not bool((first.detach().view(-1) == 7).all()):
        fail("non-blocking", "the call on the busy stream", got="other values", expected="every element 7", call=call)
    if ended_at is None:
        return ""
    if longest * 1e3 > busy_ms / 4:
        fail(
            "non-blocking",
            "a call on an idle stream waited for work queued on another stream",
            got=f"call {longest_at} took {longest * 1e3:.0f} ms; the other stream's {busy_ms:.0f} ms of work ended "
            f"during call {ended_at} of {calls}",
            expected="every call returns while the other stream's work still runs",
            call=call,
        )
    return (
        f"{ended_at} calls outlasted the other stream's {busy_ms:.0f} ms of work with none longer than "
        f"{longest * 1e3:.1f} ms"
    )


@prop("non-blocking", table=True, timed=True)
def prop_idle_stream_never_waits(target: Target, device: torch.device, **overrides: Any) -> None:
    """non-blocking: calls on an idle side stream never wait for another stream's queued work, past a staging pool's
    cap (a table: 320 calls of 256 KiB, past the reference's 64 MiB small-payload cap; 300 of 4 MiB, past its 1 GiB
    cap of that size class)."""
    requires_cuda(target, "non-blocking", device)
    del overrides
    rows = Rows("calls on an idle stream beside a busy one")
    rows.row(check_idle_stream_never_waits_for_another, target, device, (256 << 10) // 4, 320)
    rows.row(check_idle_stream_never_waits_for_another, target, device, (4 << 20) // 4, 300)
    rows.finish()


@check("non-blocking")
def check_other_thread_work_never_waited(
    target: Target, device: torch.device, elements: int, calls: int, *, busy_ms: float = 1000.0, rounds: int = 4
) -> None:
    """non-blocking (CUDA), two threads on one stream: while this thread makes ``calls`` calls of ``elements`` int32
    (a tensor, else an array, else a list: what the target takes) on a side stream, a second thread queues ``busy_ms``
    of spin work on the same stream, launched inside the first call (a third of a warm call's host time after it
    begins); no call may wait for that work, and each result holds its own values.

    A large-payload pool that records a block's start event when it takes the block, before the host copy, rather
    than right before the DMA, reads "the oldest block's start has completed" as "only our own copy is left" when
    the other thread's kernel sits between that start and the DMA: at its depth it waits for the whole kernel (an
    outside round's GPU bug, r60 b03; ``StagingPool.mark_start`` in the reference says why the start comes after
    the host copy). Each round starts from the target's ``empty_cache`` (where it has one) and two calls queued
    behind 50 ms of spin work, then synchronized: two finished staging buffers (the reference's depth is two blocks of
    64 MiB and three of 16 MiB, ``_staging.AHEAD_BYTES``: each row's calls go past it).
    A third call, synchronized, gives the warm host time once. The reference passes with its default caps; a staging
    cap set below ``calls`` buffers (``H2D_STAGING_MAX_BYTES``) makes it wait for its oldest block, behind the work.

    Judged on evidence only. A round counts where the other thread's launch began and ended inside the middle 70%
    of the first call. A call in it waited when it began while the work ran, returned after the work ended, and took
    more than a quarter of the work's measured length (CUDA events) over the warm call. One round with such a wait
    is confirmed by another (a loaded host can stretch one call): two fail the check. A counted round without a
    wait, its work still running when the last call returned, passes, if it is the first round or followed the
    target's ``empty_cache`` (else its pools may hold more finished buffers than the case needs); other rounds are
    tried again, up to ``rounds``.

    Raises:
        NotApplicable: the target's warm call is too slow for ``calls`` calls inside a quarter of the work, or no
            round passed or confirmed a wait on this host.
        KitError: the second thread failed to queue its work.
    """
    import threading

    requires_cuda(target, "non-blocking", device)
    kind = filler_kind(target)
    kwargs = filler_kwargs(target, device)
    call = (
        f"s = torch.cuda.Stream(); thread B: with torch.cuda.stream(s): <spin {busy_ms:.0f} ms, launched during "
        f"call 0>; this thread: with torch.cuda.stream(s): for k in range({calls}): f(<{elements} int32 of k + 1 "
        f"as a {kind}>, device={str(device)!r})"
    )
    stream = torch.cuda.Stream(device)
    cycles_per_ms(device)  # calibrated here: the other thread's busy() must only launch

    def two_finished_buffers() -> None:
        fillers = [int32_filler(kind, 0, elements) for _ in range(2)]
        synchronize()
        if target.empty_cache is not None:
            target.empty_cache()
        with torch.cuda.stream(stream):
            busy(50.0, device)  # both calls queued behind it: the second cannot reuse the first's buffer
            for filler in fillers:
                call_valid("non-blocking", target, filler, dict(kwargs))
            stream.synchronize()

    two_finished_buffers()
    payload = int32_filler(kind, 0, elements)
    with torch.cuda.stream(stream):
        t0 = time.perf_counter()
        call_valid("non-blocking", target, payload, dict(kwargs))
        warm_s = time.perf_counter() - t0
        stream.synchronize()
    if warm_s * calls > busy_ms / 1e3 / 4:
        raise NotApplicable(
            f"non-blocking, another thread's work: a warm call of {elements} int32 as a {kind} took "
            f"{warm_s * 1e3:.1f} ms, too slow for {calls} calls inside a quarter of {busy_ms:.0f} ms of work"
        )

    def thread_b(go: threading.Event, launched: list[Any], errors: list[BaseException]) -> None:
        try:
            if not go.wait(60):
                return
            with torch.cuda.stream(stream):
                time.sleep(warm_s / 3)
                before = time.perf_counter()
                began = torch.cuda.Event(enable_timing=True)
                began.record()
                spin = busy(busy_ms, device)
                finished = torch.cuda.Event(enable_timing=True)
                finished.record()
                launched.append((before, time.perf_counter(), spin, began, finished))
        except BaseException as exc:  # noqa: BLE001 - raised on the calling thread below
            errors.append(exc)

    waits: list[str] = []
    for attempt in range(rounds):
        if attempt:
            two_finished_buffers()
        payloads = [int32_filler(kind, k + 1, elements) for k in range(calls)]
        go = threading.Event()
        launched: list[Any] = []
        errors: list[BaseException] = []
        worker = threading.Thread(
            target=thread_b, args=(go, launched, errors), name="h2d-contracts-same-stream-B", daemon=True
        )
        worker.start()
        results, spans, ended = [], [], []
        with torch.cuda.stream(stream):
            for k, p in enumerate(payloads):
                if k == 0:
                    go.set()
                t0 = time.perf_counter()
                results.append(call_valid("non-blocking", target, p, dict(kwargs)))
                t1 = time.perf_counter()
                if k == 0:
                    worker.join(60)
                spans.append((t0, t1))
                ended.append(bool(launched) and launched[0][2].query())
        stream.synchronize()
        worker.join(60)
        if errors:
            raise KitError(
                f"the second thread of check_other_thread_work_never_waited raised {errors[0]!r}"
            ) from errors[0]
        if not launched:
            raise KitError("the second thread of check_other_thread_work_never_waited queued no work in 60 s")
        _each_filled(results, 1, f"of {calls}", call)
        before, after, _, began, finished = launched[0]
        work_s = began.elapsed_time(finished) / 1e3
        (c0, c1), margin = spans[0], 0.15 * (spans[0][1] - spans[0][0])
        if not (c0 + margin < before and after < c1 - margin):
            continue  # the launch fell outside the middle of the first call: the case was not exercised
        waited = [
            (k, spans[k][1] - spans[k][0])
            for k in range(1, calls)
            if not ended[k - 1] and ended[k] and spans[k][1] - spans[k][0] - warm_s > work_s / 4
        ]
        if waited:
            k, took = waited[0]
            waits.append(f"round {attempt + 1}: call {k} took {took * 1e3:.0f} ms and returned after the work ended")
            if len(waits) == 2:
                fail(
                    "non-blocking",
                    "a call waited for work another thread queued on the same stream during an earlier call",
                    got=f"{'; '.join(waits)} (warm {warm_s * 1e3:.1f} ms, the work {work_s * 1e3:.0f} ms)",
                    expected="every call returns while that work still runs",
                    call=call,
                )
            continue
        if not ended[-1] and (attempt == 0 or target.empty_cache is not None):
            return
    raise NotApplicable(
        f"non-blocking, another thread's work: {rounds} rounds on this host neither passed nor confirmed a wait "
        f"({'; '.join(waits) or 'no wait seen'})"
    )


@prop("non-blocking", table=True, timed=True)
def prop_other_thread_work_never_waited(target: Target, device: torch.device, **overrides: Any) -> None:
    """non-blocking: with two threads on one stream, a call never waits for the spin work the other thread queued
    during an earlier call (a table: 6 calls of 64 MiB, and 8 of 16 MiB, each past the reference's depth, two blocks of
    64 MiB and three of 16 MiB; a row this host or target is too slow for is not applicable by itself, the table only
    when both are)."""
    requires_cuda(target, "non-blocking", device)
    del overrides
    rows = Rows("calls beside another thread's work on the same stream")
    skipped = []
    for elements, calls in (((64 << 20) // 4, 6), ((16 << 20) // 4, 8)):
        try:
            rows.row(check_other_thread_work_never_waited, target, device, elements, calls)
        except NotApplicable as exc:
            skipped.append(str(exc))
    rows.finish()
    if len(skipped) == 2:
        raise NotApplicable("; ".join(skipped))
