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

``--interleaved`` instead samples as the bench's section (b) does (``h2d_bench.busy_host_ms``: every pattern of
the bench, one sample each per round, :func:`h2d_bench.round_order`), with two more patterns in the rounds: the
reference's steps (``ref steps``, each step's time kept aside) and the same steps taking the pool's newest
finished block instead of its oldest (``ref newest``: on one stream, the newest block's copy done means every
block's is; the newest was written last, so its lines are the likeliest still in the CPU's caches). On an H100
the bench's interleaved rounds had the reference's whole call at 1.7-2.7x vLLM's, the in-a-row samples above at
1.0-1.1x: which step grows, and does the block's choice matter?

``--policy-ab`` runs the bench's own section (b) (``h2d_bench.bench_busy``, its patterns, 7 samples each, 1, 4 and
16 MiB) four times, alternating the pool's choice of a finished block: ``oldest`` (the pool as it is) and
``newest`` (:func:`newest_first`), the pools emptied before each: the reference's and vLLM's medians per size.

``--after-small`` runs the bench's section (b) at those sizes alone, then its section (a) (``h2d_bench.bench_small``,
every size and kind, as the whole bench runs it first), then (b) again: on one H100 (b) alone had the reference at
0.89-1.10x vLLM, and inside the whole bench at 1.3-2.7x, with vLLM's calls about twice as fast there. Does running
(a) first make the difference?

``--wake`` asks whether the busy rows measure the GPU's queue or the host waking up: the bench's patterns and
``buffer_floor`` at 4 KiB and 1 MiB, interleaved as the bench samples them, each sample after one of five waits:
``busy`` (the bench's: 100 ms of spin work queued), ``busy+spin`` (that, then 2 ms of host spinning in Python
before the call), ``idle`` (nothing queued, no wait), ``idle+sleep`` (nothing queued, the host asleep 100 ms in
``time.sleep``) and ``idle+spin`` (nothing queued, the host spinning 100 ms). The host's cpufreq governor and
cpuidle states are printed first. If ``idle+sleep`` shows the busy penalty and ``busy+spin`` does not, the busy
rows time a host core waking from an idle state, not the stream.

``--route-ab`` runs the bench's sections (a) and (b) at small sizes with the reference's small path twice, its numpy
route on and off (:func:`route_ab`).

``--small-steps`` times the small-pool path step by step at 4 KiB (a pageable int32 tensor), as the fast path takes
it: the attribute checks, ``is_pinned()``, the pool lookup and lock, the slice (``small_tensor``), the host
``copy_`` and the DMA (``_dma``); beside it vLLM's steps (``torch.empty(pin_memory=True)``, ``copy_``, ``.to``)
and the two whole calls, each sample right after a synchronize (``idle``) or behind 100 ms queued (``busy``),
interleaved as the bench samples: on one H100 (``--wake``) the whole reference call was 56 / 164 us there against
vLLM's 43 / 138.
"""

from __future__ import annotations

import functools
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
# the bench's own calibration of the spin kernel, its patterns, its section (b) and that section's sampling
from h2d_bench import (
    bench_busy,
    bench_small,
    busy_host_ms,
    cycles_per_ms,
    host_ns_after,
    patterns,
    queue_spin,
    rotated_medians,
)


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


def newest_steps(data: torch.Tensor, device: torch.device) -> dict[str, float]:
    """:func:`reference_steps`, the pool's newest block taken when its copy is done (every block on one stream)."""
    laps = Laps()
    data.is_pinned()
    _h2d.check_representable(data, data.dtype)
    nbytes = data.numel() * data.element_size()
    pool = _staging.pool_for(device, max(_staging.MIN_BLOCK_BYTES, 1 << (nbytes - 1).bit_length()), True, small=False)
    laps.lap("checks")
    with pool.lock:
        inflight = pool._inflight
        if inflight and not pool._free and inflight[-1].done.query():
            block = inflight.pop()
            block.marked = False
        else:
            block = pool.take(nbytes)
        laps.lap("take")
        staging = block.tensor(data.shape, data.dtype)
        _h2d._host_copy(staging, data)
        laps.lap("host_copy")
        pool.mark_start(block)
        _h2d._dma(staging, device, None)
        pool.give_back(block)
        laps.lap("dma")
    return laps.times


_OLDEST_FIRST = _staging.StagingPool._first_done


def newest_first(self: _staging.StagingPool) -> _staging._Chunk | None:
    """The pool's ``_first_done``, but where the newest in-flight block (same stream) is done too, that one: on one
    stream its copy done means every earlier one is, and it was written last."""
    chunk = _OLDEST_FIRST(self)
    if chunk is None or not self._inflight:
        return chunk
    last = self._inflight[-1]
    if last.key == chunk.key and last.done.query():
        self._inflight.pop()
        self._inflight.appendleft(chunk)
        return last
    return chunk


def policy_ab(device: torch.device) -> None:
    """The bench's section (b) at 1, 4 and 16 MiB, four times: the pool taking its oldest, then its newest finished
    block, twice; the reference's and vLLM's medians (ms) and spreads per size."""
    for run in range(4):
        policy = "newest" if run % 2 else "oldest"
        _staging.StagingPool._first_done = newest_first if run % 2 else _OLDEST_FIRST  # type: ignore[method-assign]
        torch.cuda.synchronize(device)
        _staging.empty_staging_cache()
        rows = bench_busy(device, patterns(), [1 << 20, 4 << 20, 16 << 20], 100.0, 7)
        for row in rows:
            sp = row["spread"]
            print(
                f"policy-ab run {run} {policy:6s} {row['bytes'] >> 20:3d} MiB busy ms: reference={row['reference']:.3f}"
                f"[{sp['reference'][0]:.3f}-{sp['reference'][2]:.3f}] vllm={row.get('vllm', float('nan')):.3f}"
                f" buffer_floor={row['buffer_floor']:.3f}",
                flush=True,
            )
    _staging.StagingPool._first_done = _OLDEST_FIRST  # type: ignore[method-assign]


def after_small(device: torch.device) -> None:
    """Section (b) at 1, 4 and 16 MiB alone, then section (a) as the whole bench runs it, then (b) again."""

    def busy(label: str) -> None:
        for row in bench_busy(device, patterns(), [1 << 20, 4 << 20, 16 << 20], 100.0, 7):
            print(
                f"after-small {label:13s} {row['bytes'] >> 20:3d} MiB busy ms: reference={row['reference']:.3f}"
                f" vllm={row.get('vllm', float('nan')):.3f} buffer_floor={row['buffer_floor']:.3f}",
                flush=True,
            )

    busy("(b) alone")
    bench_small(device, patterns(), [1, 16, 256, 4096, 65536], 600)
    busy("(b) after (a)")


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def _host_facts() -> None:
    """The host's cpufreq governor and cpuidle states (what a core sleeping between samples can fall into)."""
    base = Path("/sys/devices/system/cpu")
    for name in ("cpu0/cpufreq/scaling_governor", "cpuidle/current_driver", "cpuidle/current_governor_ro"):
        f = base / name
        print(f"wake host {name}: {f.read_text().strip() if f.exists() else '-'}", flush=True)
    states = sorted((base / "cpu0/cpuidle").glob("state*"))
    for st in states:
        fields = {k: (st / k).read_text().strip() for k in ("name", "latency", "disable") if (st / k).exists()}
        print(f"wake host cpu0 {st.name}: {fields}", flush=True)


def wake(device: torch.device, cpm: float, reps: int = 9) -> None:
    """The bench's patterns and ``buffer_floor`` at 4 KiB and 1 MiB after each of five waits (module docstring)."""
    _host_facts()

    def waits(kind: str) -> None:
        if kind.startswith("busy"):
            queue_spin(device, 100.0, cpm)
            if kind == "busy+spin":
                _spin(2e-3)
        elif kind == "idle+sleep":
            time.sleep(0.1)
        elif kind == "idle+spin":
            _spin(0.1)

    for nbytes in (4096, 1 << 20):
        n = nbytes // 4
        data = torch.arange(n, dtype=torch.int32)
        buf = h2d_impl.CpuGpuBuffer(n, dtype=torch.int32, device=device, pin_memory=True)
        cases: dict[str, Callable[[], object]] = {
            name: functools.partial(fn, data, device) for name, fn in patterns().items()
        }
        cases["buffer_floor"] = functools.partial(buf.copy_to_gpu, n)
        for call in cases.values():
            call()
            torch.cuda.synchronize(device)
        for kind in ("busy", "busy+spin", "idle", "idle+sleep", "idle+spin"):

            def sample(call: Callable[[], object], kind: str = kind) -> float:
                return host_ns_after(call, device, lambda: waits(kind)) / 1e3

            got = rotated_medians(cases, reps, sample)
            spread = got.pop("spread")
            print(
                f"wake {nbytes:>8d} B {kind:10s} us: "
                + " ".join(f"{k}={v:.1f}[{spread[k][0]:.1f}-{spread[k][2]:.1f}]" for k, v in got.items()),
                flush=True,
            )


def small_steps(data: torch.Tensor, device: torch.device) -> dict[str, float]:
    """The fast path's small-pool steps for a pageable tensor into its own dtype (us per step)."""
    laps = Laps()
    _ = (data.requires_grad, data.layout, data.is_nested, data.is_cpu, data.dtype, data.is_conj(), data.is_neg())
    laps.lap("checks")
    data.is_pinned()
    laps.lap("is_pinned")
    nbytes = data.numel() * data.element_size()
    pool = _staging.pool_for(device, _staging.SMALL_CHUNK_BYTES, True, small=True)
    with pool.lock:
        laps.lap("pool+lock")
        staging = pool.small_tensor(data.shape, data.dtype, nbytes)
        laps.lap("slice")
        staging.copy_(data)
        laps.lap("copy_")
        result = _h2d._dma(staging, device, None)
        laps.lap("dma")
    del result
    return laps.times


def vllm_small_steps(data: torch.Tensor, device: torch.device) -> dict[str, float]:
    laps = Laps()
    pinned = torch.empty(data.shape, dtype=data.dtype, device="cpu", pin_memory=True)
    laps.lap("empty_pinned")
    pinned.copy_(data)
    laps.lap("copy_")
    result = pinned.to(device=device, non_blocking=True)
    laps.lap("to")
    del result
    return laps.times


def small_steps_probe(device: torch.device, cpm: float, reps: int = 15) -> None:
    """``--small-steps``: the module docstring."""
    data = torch.arange(1024, dtype=torch.int32)
    laps: dict[str, list[dict[str, float]]] = {"ref steps": [], "vllm steps": []}
    cases: dict[str, Callable[[], object]] = {
        "ref steps": lambda: laps["ref steps"].append(small_steps(data, device)),
        "vllm steps": lambda: laps["vllm steps"].append(vllm_small_steps(data, device)),
        "is_pinned": data.is_pinned,
    }
    pats = patterns()
    cases["reference"] = functools.partial(pats["reference"], data, device)
    if "vllm" in pats:
        cases["vllm"] = functools.partial(pats["vllm"], data, device)
    for call in cases.values():
        for _ in range(3):
            call()
        torch.cuda.synchronize(device)
    for busy in (0.0, 100.0):
        for v in laps.values():
            v.clear()

        def sample(call: Callable[[], object], busy: float = busy) -> float:
            before = (lambda: queue_spin(device, busy, cpm)) if busy else (lambda: None)
            return host_ns_after(call, device, before) / 1e3

        got = rotated_medians(cases, reps, sample)
        got.pop("spread")
        label = "busy" if busy else "idle"
        print(f"small-steps {label} us: " + " ".join(f"{k}={v:.1f}" for k, v in got.items()), flush=True)
        for name, rows in laps.items():
            med = {k: statistics.median(d[k] for d in rows) for k in rows[0]}
            print(f"small-steps {label} {name} us: " + " ".join(f"{k}={v:.1f}" for k, v in med.items()), flush=True)


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


def interleaved_row(nbytes: int, device: torch.device, cpm: float, reps: int) -> None:
    """One size of :func:`interleaved`: each pattern's median ms and spread, then the two variants' median steps (us)."""
    n = nbytes // 4
    data = torch.arange(n, dtype=torch.int32)
    buf = h2d_impl.CpuGpuBuffer(n, dtype=torch.int32, device=device, pin_memory=True)
    steps: dict[str, list[dict[str, float]]] = {"ref steps": [], "ref newest": []}
    cases: dict[str, Callable[[], object]] = {
        name: functools.partial(fn, data, device) for name, fn in patterns().items()
    }
    cases["buffer_floor"] = lambda: buf.copy_to_gpu(n)
    cases["ref steps"] = lambda: steps["ref steps"].append(reference_steps(data, device))
    cases["ref newest"] = lambda: steps["ref newest"].append(newest_steps(data, device))
    for call in cases.values():
        call()
        torch.cuda.synchronize(device)
    for v in steps.values():
        v.clear()
    got = busy_host_ms(cases, device, 100.0, cpm, reps)
    spread = got.pop("spread")
    print(
        f"interleaved {nbytes >> 20:3d} MiB busy ms: "
        + " ".join(f"{k}={v:.3f}[{spread[k][0]:.3f}-{spread[k][2]:.3f}]" for k, v in got.items()),
        flush=True,
    )
    for name, laps in steps.items():
        med = {k: statistics.median(d[k] for d in laps) for k in laps[0]}
        print(f"interleaved {nbytes >> 20:3d} MiB {name} us: " + " ".join(f"{k}={v:.1f}" for k, v in med.items()))


def interleaved(device: torch.device, cpm: float, reps: int = 9) -> None:
    """The bench's section (b) sampling (:func:`h2d_bench.busy_host_ms`) with ``ref steps`` and ``ref newest`` added
    to its patterns, at 1, 4 and 16 MiB."""
    for nbytes in (1 << 20, 4 << 20, 16 << 20):
        interleaved_row(nbytes, device, cpm, reps)


def _with_numpy_dims(dims: int) -> Callable[[object, torch.device], object]:
    """The reference's call with ``h2d._NUMPY_MAX_DIMS`` set to ``dims`` for its duration (-1: the torch route)."""

    def call(p: object, d: torch.device) -> object:
        saved, _h2d._NUMPY_MAX_DIMS = _h2d._NUMPY_MAX_DIMS, dims
        try:
            return h2d_impl.async_tensor_h2d(p, d)
        finally:
            _h2d._NUMPY_MAX_DIMS = saved

    return call


def route_ab(device: torch.device, rounds: int = 2) -> None:
    """The bench's section (a) at 1-4,096 elements and its section (b) at 4-256 KiB, with the reference twice: ``ref
    numpy`` (the small path's numpy route on, as shipped) and ``ref torch`` (off: ``h2d._NUMPY_MAX_DIMS = -1``), vLLM
    beside them, ``rounds`` times: does the route the CPU machine measured 0.3-0.5 us faster warm and 1-14 us slower
    cold pay on a GPU host?"""
    pats = {"ref numpy": _with_numpy_dims(_h2d._NUMPY_MAX_DIMS), "ref torch": _with_numpy_dims(-1)}
    bench_pats = patterns()
    if "vllm" in bench_pats:
        pats["vllm"] = bench_pats["vllm"]
    for r in range(rounds):
        for row in bench_small(device, pats, [1, 16, 256, 4096], 2000):
            print(
                f"route-ab {r} (a) n={row['n']} {row['kind']}: "
                + " ".join(f"{k}={row[k]:.2f}" for k in (*pats, "staged_floor")),
                flush=True,
            )
        for row in bench_busy(device, pats, [4096, 65536, 262144], 100.0, 15):
            print(
                f"route-ab {r} (b) {row['bytes']} B: " + " ".join(f"{k}={row[k] * 1e3:.1f}us" for k in pats),
                flush=True,
            )


def main() -> None:
    device = torch.device("cuda", torch.cuda.current_device())
    cpm = cycles_per_ms(device)
    if "--small-steps" in sys.argv[1:]:
        small_steps_probe(device, cpm)
        return
    if "--route-ab" in sys.argv[1:]:
        route_ab(device)
        return
    if "--wake" in sys.argv[1:]:
        wake(device, cpm)
        return
    if "--after-small" in sys.argv[1:]:
        after_small(device)
        return
    if "--policy-ab" in sys.argv[1:]:
        policy_ab(device)
        return
    if "--interleaved" in sys.argv[1:]:
        interleaved(device, cpm)
        return
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
