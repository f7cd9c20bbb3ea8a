"""Contract ``step-loop``: an engine's step loop run in every mode (one stream, a side copy stream, a stream per thread,
a CUDA graph), its consumed inputs judged against what the host meant, its calls against the stream, and nothing
retained at quiescence."""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

import numpy as np
import torch

from h2d_contracts.harness.calling import synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import require_device
from h2d_contracts.harness.target import Target, forget_last_call
from h2d_contracts.harness.violations import NotApplicable, fail

from ..gpu.timing import cycles_per_ms
from ..reliability import quiescent_bytes
from .loop import _Loop

#: How the copies of a step are queued: on the current stream; on a side copy stream the
#: consumer waits for by an event; on a stream per thread (three threads, each its own loop);
#: into static device buffers read by a captured CUDA graph (replayed every step).
ENGINE_MODES = ("one-stream", "side-stream", "threads", "graph")


def step_loop_plan(
    mode: str, *, steps: int = 12, seed: int = 0, max_tokens: int = 4097, max_reqs: int = 300
) -> dict[str, Any]:
    """A step loop's parameters, as :func:`check_step_loop` takes them (plain values: a reproduction rebuilds it).

    ``max_tokens`` elements is the capacity of the persistent buffers and static device
    tensors (past 4,096: a size class or chunk boundary); ``max_reqs`` rows the largest
    block table (past 256 rows: a block of rows).
    """
    if mode not in ENGINE_MODES:
        raise ValueError(f"mode must be one of {ENGINE_MODES}, got {mode!r}")
    return {
        "mode": mode,
        "steps": int(steps),
        "seed": int(seed),
        "max_tokens": int(max_tokens),
        "max_reqs": int(max_reqs),
    }


def _judge(loops: list[_Loop], plan: dict[str, Any], device: torch.device) -> None:
    where = f"step loop ({plan['mode']}, {plan['steps']} steps, seed {plan['seed']})"
    for loop in loops:
        for step, name, consumed, expected, call in loop.seen:
            got = consumed.cpu().numpy()
            if got.shape != expected.shape or not np.array_equal(got, expected):
                bad = (
                    np.flatnonzero(got.reshape(-1) != expected.reshape(-1))
                    if got.shape == expected.shape
                    else np.array([0])
                )
                first = int(bad[0])
                fail(
                    "step-loop",
                    f"{where}: step {step}, {name}: the consumer read other values than the host meant ({len(bad)} of {expected.size} elements differ, first at {first})",
                    got=f"{got.reshape(-1)[first] if got.size else got.shape!r}",
                    expected=f"{expected.reshape(-1)[first] if expected.size else expected.shape!r}",
                    call=f"{call} (lane {loop.lane})",
                )
        if loop.blocked:
            (first, what, ms1), (second, _, ms2) = loop.blocked[:2]
            fail(
                "step-loop",
                f"{where}: step {second}: the calls waited for the stream: in steps {first} and {second} the previous step's forward pass "
                f"({ms1:.0f} ms, then {ms2:.0f} ms of queued work) was running when the calls began and had finished when they returned",
                got="the host blocked twice in a row",
                expected="the calls return while the stream is still busy",
                call=what[:400],
            )


def _retained(loops: list[_Loop], target: Target) -> list[tuple[int, str]]:
    forget_last_call()  # the kit's own record of the last call holds its data
    if target.empty_cache is not None:
        target.empty_cache()
    gc.collect()
    return [(step, what) for loop in loops for step, what, ref in loop.refs if ref() is not None]


@check("step-loop")
def check_step_loop(target: Target, device: torch.device, plan: dict[str, Any]) -> None:
    """step-loop: an engine's step loop of ``plan`` (:func:`step_loop_plan`) on ``device``; see the package docstring (:mod:`h2d_contracts.contracts.engine`).

    Raises:
        ContractViolation: a step's consumed input differs from what the host meant, a
            step's calls waited for the stream (CUDA), a fresh input or dropped buffer is
            still referenced at quiescence, or pinned/device bytes grew past the warm-up.
        NotApplicable: the target takes none of the loop's inputs, or ``graph`` mode
            without ``out`` on CUDA.
    """
    loops = _loops(target, device, plan)
    cuda = device.type == "cuda"
    _warm_up(loops, device)
    synchronize(device)
    base = quiescent_bytes(device, target.empty_cache) if cuda else (0, 0)
    _run_lanes(loops, plan, timed=cuda)
    synchronize(device)
    _judge(loops, plan, device)
    for loop in loops:
        loop.seen.clear()
        loop.forward_done = loop.pending_buffer_event = None
    _judge_quiescence(loops, target, device, plan, base)


def _loops(target: Target, device: torch.device, plan: dict[str, Any]) -> list[_Loop]:
    """The loop's lanes (three in ``threads`` mode, else one), the graph captured in ``graph`` mode on CUDA.

    Raises NotApplicable for a target that takes none of the loop's inputs, or ``graph`` mode without ``out`` on CUDA.
    """
    mode = plan["mode"]
    lanes = 3 if mode == "threads" else 1
    loops = [_Loop(target, device, plan, lane) for lane in range(lanes)]
    if not (loops[0].kinds or loops[0].buffers):
        raise NotApplicable(
            f"contract 'step-loop': target {target.name!r} takes none of list, ndarray, tensor and has no buffer"
        )
    if mode == "graph" and device.type == "cuda":
        if not loops[0].has_out:
            raise NotApplicable(
                f"contract 'step-loop': graph mode fills static device buffers with out=, which target {target.name!r} does not take"
            )
        loops[0]._capture_graph()
    return loops


def _warm_up(loops: list[_Loop], device: torch.device) -> None:
    """Two untimed steps of every lane; on CUDA the warm step's host time calibrates the forward pass queued later."""
    # Warm-up: two steps untimed (caches, pools, the graph); the second, warm, step's host time calibrates
    # the forward pass queued behind each later step: ten times it, at least 20 ms, at most 200 ms, so a
    # step that does not wait for the stream returns long before that work ends, on a loaded host too.
    warm = 0.0
    for loop in loops:
        loop.step(0, timed=False)
        t0 = time.perf_counter()
        loop.step(1, timed=False)
        warm = max(warm, time.perf_counter() - t0)
    if device.type == "cuda":
        cycles_per_ms(device)
        for loop in loops:
            loop.busy_ms = min(200.0, max(20.0, 10_000 * warm))
    for loop in loops:
        loop.seen.clear()
        loop.refs.clear()


def _run_lanes(loops: list[_Loop], plan: dict[str, Any], *, timed: bool) -> None:
    """The loop's steps after the warm-up, one thread per lane when there are several; a lane's exception is raised here."""
    errors: list[BaseException] = []

    def run(loop: _Loop) -> None:
        try:
            for s in range(2, plan["steps"] + 2):
                loop.step(s, timed=timed)
                if loop.blocked:
                    break  # concluded: the rest of the loop would wait out its forward passes again
                if s % 3 == 0:
                    loop.dropped_buffer(s)
        except BaseException as exc:  # noqa: BLE001 - a thread's exception is raised in the caller below
            errors.append(exc)

    if len(loops) == 1:
        run(loops[0])
    else:
        threads = [threading.Thread(target=run, args=(loop,), name=f"step-loop-lane-{loop.lane}") for loop in loops]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    if errors:
        raise errors[0]


def _judge_quiescence(
    loops: list[_Loop], target: Target, device: torch.device, plan: dict[str, Any], base: tuple[int, int]
) -> None:
    """At quiescence: no fresh input or dropped buffer of any step still referenced; on CUDA, pinned host and device
    bytes at most ``base`` (their reading after the warm-up)."""
    mode = plan["mode"]
    retained = _retained(loops, target)
    if retained:
        step, what = retained[0]
        fail(
            "step-loop",
            f"step loop ({mode}): {what} of step {step} is still referenced at quiescence ({len(retained)} fresh inputs or dropped buffers of {plan['steps']} steps)",
            got="a live reference after the target's empty_cache and a garbage collection",
            expected="nothing of an earlier step retained",
        )
    if device.type == "cuda":
        host, dev = quiescent_bytes(device, target.empty_cache)
        if host > base[0] or dev > base[1]:
            fail(
                "step-loop",
                f"step loop ({mode}): memory grew over {plan['steps']} steps with fresh inputs",
                got=f"pinned host {host:,} B, device {dev:,} B",
                expected=f"at most the warm-up reading (pinned host {base[0]:,} B, device {base[1]:,} B)",
            )


@prop("step-loop")
def prop_step_loop(target: Target, device: torch.device, **overrides: Any) -> None:
    """step-loop: an engine step loop of 12 steps with changing sizes, in every mode (one stream, side stream, threads, graph)."""
    require_device(target, device, "step-loop")
    seed = int(overrides.get("seed", 0))
    ran = 0
    for mode in ENGINE_MODES:
        try:
            check_step_loop(target, device, step_loop_plan(mode, seed=seed))
            ran += 1
        except NotApplicable:
            if mode == "one-stream":
                raise
    if not ran:
        raise NotApplicable("contract 'step-loop': no mode applies")


@prop("step-loop")
def prop_step_loop_fresh(target: Target, device: torch.device, **overrides: Any) -> None:
    """step-loop: 60 steps of fresh inputs, changing sizes and buffers made and dropped, for growth at quiescence."""
    require_device(target, device, "step-loop")
    check_step_loop(
        target,
        device,
        step_loop_plan("one-stream", steps=60, seed=int(overrides.get("seed", 1)), max_tokens=1025, max_reqs=64),
    )
