"""Contracts ``step-loop`` and ``multi-stream``: the patterns serving engines drive H2D copies with.

An engine's model runner prepares every step's inputs on the host while the previous step's
forward pass is still queued on the GPU, and copies them with a mix of calls: persistent
``CpuGpuBuffer``\\ s refilled through ``.np`` and uploaded with ``copy_to_gpu(n)``, lists (one
value or one block-table row per request), numpy arrays the host overwrites in place the
moment the call returns, a *fresh* pinned tensor every step, and ``out=`` into persistent
device tensors that a CUDA graph reads. Sizes change every step. Copies run on the current
stream, on a side copy stream, or on a stream per thread.

``step-loop`` (:func:`check_step_loop`) runs such a loop and asserts:

- every step's device inputs, as the consumer read them on its stream (after the
  documented event wait for a side copy stream), equal what the host meant at that step
  (the loop orders the device as an engine must: the copy stream waits for the event after
  the previous step's consumer before overwriting static device tensors and a buffer's
  ``.gpu``);
- the calls never wait for the stream, judged by the stream's own state: a step is judged when
  the previous step's queued forward pass (calibrated spin work, ten times the host's warm
  step) is still running as its calls begin; the calls waited if it had finished when they
  returned. One such step is a suspicion (a preempted host looks the same): the next forward
  pass is queued with four times the work, and only a second judged step in a row that
  outlasts it fails the contract, and ends the loop at once. A step whose preparation
  outlasted the work is not judged, and more work is queued from then on.
  The only waits are the documented ones, made by the loop itself: before the host
  overwrites a buffer's ``.cpu``, it waits for the event recorded after that buffer's last
  copy (docs/reference.md: a pinned source may be read after the call returns);
- at quiescence nothing is retained: every fresh host input and every dropped buffer of
  every step is garbage (a weak reference to it is dead after the target's
  ``empty_cache`` and a garbage collection), and pinned host and device bytes are back at
  their reading after the warm-up steps.

``multi-stream`` (:func:`check_streams`) replays a schedule of calls, each on one of three
streams, some behind spin work on a stream, some with their host source overwritten right
after the call, and checks every result after synchronising: a staging pool that reuses
memory by an event recorded on the wrong stream, or a copy issued on another stream than
the current one, corrupts a result only under such an interleaving.
:func:`prop_multi_stream` draws the schedules, so shrinking gives the smallest
interleaving that breaks.

On a CPU-only machine both run with streams and events simulated by nothing (every stream
is the host, every wait returns at once): the values, the host overwrites, fresh inputs
and the retention checks still run, so CI checks the contracts' own logic and the mutants
that break it; the timing and byte checks need CUDA.
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

from h2d_contracts.harness.calling import synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import require_device, run_given
from h2d_contracts.harness.target import Target, forget_last_call
from h2d_contracts.harness.violations import NotApplicable, fail

from .buffer import make_buffer
from .gpu.timing import CONFIRM_FACTOR, MAX_BUSY_MS, busy, cycles_per_ms
from .reliability import quiescent_bytes

__all__ = [
    "ENGINE_MODES",
    "MULTI_STREAM_KINDS",
    "StreamSet",
    "check_step_loop",
    "check_streams",
    "prop_multi_stream",
    "prop_multi_stream_table",
    "prop_step_loop",
    "prop_step_loop_fresh",
    "step_loop_plan",
]

#: How the copies of a step are queued: on the current stream; on a side copy stream the
#: consumer waits for by an event; on a stream per thread (three threads, each its own loop);
#: into static device buffers read by a captured CUDA graph (replayed every step).
ENGINE_MODES = ("one-stream", "side-stream", "threads", "graph")

#: Input kinds of a multi-stream schedule.
MULTI_STREAM_KINDS = ("list", "ndarray", "pinned-ndarray", "tensor", "pinned-tensor", "out", "buffer")

#: Sizes a multi-stream call draws from (elements): small ones share a small-payload staging
#: chunk, the large ones take blocks of their own.
MULTI_STREAM_SIZES = (1, 17, 255, 4097, 65537, 262145)


class StreamSet:
    """``n`` streams of ``device``: the current one first, then side streams; on the host, ``n`` stand-ins.

    ``use(i)`` makes stream ``i`` current; ``busy(i, ms)`` queues spin work on it and returns
    the event after it (None on the host); ``record(i)`` an event on it; ``wait(i, event)``
    makes stream ``i`` wait for ``event``. On the host every call is a no-op.
    """

    def __init__(self, device: torch.device, n: int) -> None:
        self.device = device
        self.cuda = device.type == "cuda"
        if self.cuda:
            current = torch.cuda.current_stream(device)
            self.streams: list[Any] = [current] + [torch.cuda.Stream(device) for _ in range(n - 1)]
        else:
            self.streams = [None] * n

    @contextlib.contextmanager
    def use(self, i: int) -> Iterator[None]:
        if not self.cuda:
            yield
            return
        with torch.cuda.stream(self.streams[i]):
            yield

    def busy(self, i: int, ms: float) -> Any:
        if not self.cuda:
            return None
        with self.use(i):
            return busy(ms, self.device)

    def record(self, i: int) -> Any:
        if not self.cuda:
            return None
        event = torch.cuda.Event()
        event.record(self.streams[i])
        return event

    def wait(self, i: int, event: Any) -> None:
        if self.cuda and event is not None:
            self.streams[i].wait_event(event)

    def synchronize(self) -> None:
        synchronize(self.device)


# --------------------------------------------------------------------------- step loop


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


def _step_sizes(plan: dict[str, Any], lane: int, step: int) -> tuple[int, int]:
    """(tokens, requests) of one step: the first steps at the extremes, then log-uniform, held for three steps.

    A decode phase keeps its batch for several steps (the same sizes, fresh tensors each
    step: a memo keyed by address and size meets a freed tensor's address again), then a
    prefill or a finished request changes them.
    """
    extremes = [
        (plan["max_tokens"], plan["max_reqs"]),
        (1, 1),
        (max(plan["max_tokens"] - 1, 1), min(257, plan["max_reqs"])),
    ]
    if step < len(extremes):
        return extremes[step]
    rng = np.random.default_rng([plan["seed"], lane, step // 3, 7])
    tokens = int(np.exp(rng.uniform(0, np.log(plan["max_tokens"] + 1)))) or 1
    reqs = int(np.exp(rng.uniform(0, np.log(plan["max_reqs"] + 1)))) or 1
    return min(tokens, plan["max_tokens"]), min(reqs, plan["max_reqs"])


class _Loop:
    """One engine's persistent state and its steps (one per thread in ``threads`` mode)."""

    def __init__(self, target: Target, device: torch.device, plan: dict[str, Any], lane: int) -> None:
        self.target, self.device, self.plan, self.lane = target, device, plan, lane
        self.mode = plan["mode"]
        self.cuda = device.type == "cuda"
        self.streams = StreamSet(device, 2)
        if self.mode == "threads" and self.cuda:
            self.streams.streams = [torch.cuda.Stream(device)] * 2  # this thread's own stream for everything
        self.copy_stream = 1 if self.mode == "side-stream" else 0
        cap = plan["max_tokens"]
        self.kinds = [k for k in ("list", "ndarray", "tensor") if k in target.inputs]
        self.has_out = "out" in target.capabilities
        self.buffers: dict[str, Any] = {}
        if "buffer" in target.capabilities:
            pin = target.pins_host()
            for name, dtype in (("input_ids", torch.int32), ("positions", torch.int64)):
                self.buffers[name] = make_buffer(
                    target, {"size": (cap,), "dtype": dtype, "pin_memory": pin, "with_numpy": True}, device
                )
        # the engine's persistent host array, overwritten every step: the numpy view of a pinned tensor where the
        # host can pin (a CpuGpuBuffer's .np), so a target that reads pinned arrays in place breaks the snapshot
        self._positions = torch.zeros(cap, dtype=torch.int64, pin_memory=target.pins_host())
        self.positions_np = self._positions.numpy()
        self.static: dict[str, torch.Tensor] = {}
        if self.has_out:
            self.static = {
                "slot_mapping": torch.zeros(cap, dtype=torch.int64, device=device),
                "seq_lens": torch.zeros(plan["max_reqs"], dtype=torch.int32, device=device),
            }
        self.graph: Any = None
        self.graph_out: dict[str, torch.Tensor] = {}
        self.pending_buffer_event: Any = None  # the event after the last copy_to_gpu: the documented wait
        self.forward_done: Any = None  # the event after the previous step's queued forward pass
        self.consumed: Any = None  # the event after the previous step's consumer read its inputs
        self.busy_ms = 0.0
        self.refs: list[tuple[int, str, weakref.ref[Any]]] = []
        self.seen: list[tuple[int, str, torch.Tensor, np.ndarray, str]] = []  # (step, name, consumed, expected, call)
        self.blocked: list[tuple[int, str, float]] = []  # (step, its calls, ms of work queued): filled when concluded
        self.suspect: tuple[int, str, float] | None = None  # a judged step whose calls returned after the work ended
        self.unjudged = 0  # steps whose preparation outlasted the queued work (no evidence either way)

    # The consumer: what the forward pass reads, on the stream the forward runs on (0).
    def _consume(self, step: int, name: str, result: torch.Tensor, expected: np.ndarray, call: str) -> None:
        if self.cuda and result.device.type == "cuda" and self.copy_stream != 0:
            # made on the copy stream, read on this one: the caching allocator must not reuse it before the read
            result.record_stream(torch.cuda.current_stream(self.device))
        self.seen.append((step, name, result.clone(), expected, call))

    def _capture_graph(self) -> None:
        """CUDA graph of the consumer of the static buffers (``graph`` mode on CUDA): static in -> graph outputs."""
        self.graph_out = {k: torch.empty_like(v) for k, v in self.static.items()}
        side = torch.cuda.Stream(self.device)
        side.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(side):
            for k, v in self.static.items():
                self.graph_out[k].copy_(v)
        torch.cuda.current_stream(self.device).wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            for k, v in self.static.items():
                self.graph_out[k].copy_(v)

    def _replay(self) -> dict[str, torch.Tensor]:
        if self.graph is not None:
            self.graph.replay()
            return self.graph_out
        return {k: v.clone() for k, v in self.static.items()}  # the host's stand-in for a graph

    def step(self, step: int, *, timed: bool) -> None:
        """Prepare, copy and consume one step."""
        rng = np.random.default_rng([self.plan["seed"], self.lane, step])
        tokens, reqs = _step_sizes(self.plan, self.lane, step)
        target, device, s = self.target, self.device, self.streams
        calls: list[tuple[str, Any, dict[str, Any], np.ndarray, str]] = []
        # Documented wait: the buffers' .cpu may still be read by the last copy_to_gpu.
        if self.pending_buffer_event is not None:
            self.pending_buffer_event.synchronize()
        for buf in self.buffers.values():
            values = rng.integers(0, 2**31 - 1, size=tokens)
            buf.np[:tokens] = values
        if "list" in self.kinds:
            seq_lens = rng.integers(1, 2**20, size=reqs).tolist()
            calls.append(
                (
                    "seq_lens",
                    seq_lens,
                    {"dtype": torch.int32},
                    np.array(seq_lens, dtype=np.int32),
                    f"list of {reqs} ints",
                )
            )
            table = rng.integers(0, 2**20, size=(reqs, 4)).tolist()
            calls.append(
                (
                    "block_table",
                    table,
                    {"dtype": torch.int32},
                    np.array(table, dtype=np.int32),
                    f"list of {reqs} rows of 4 ints",
                )
            )
        if "ndarray" in self.kinds:
            self.positions_np[:tokens] = rng.integers(0, 2**40, size=tokens)
            calls.append(
                (
                    "positions",
                    self.positions_np[:tokens],
                    {"dtype": torch.int64},
                    self.positions_np[:tokens].copy(),
                    f"the persistent {'pinned ' if self._positions.is_pinned() else ''}int64 array[:{tokens}]",
                )
            )
        if "tensor" in self.kinds:
            fresh = torch.empty(tokens, dtype=torch.float32, pin_memory=target.pins_host())
            fresh.copy_(torch.from_numpy(rng.standard_normal(tokens).astype(np.float32)))
            self.refs.append(
                (step, "a fresh pinned tensor" if fresh.is_pinned() else "a fresh tensor", weakref.ref(fresh))
            )
            calls.append(
                (
                    "temperature",
                    fresh,
                    {"dtype": torch.float32},
                    fresh.numpy().copy(),
                    f"a fresh {'pinned ' if fresh.is_pinned() else ''}float32 tensor of {tokens}",
                )
            )
            fresh_arr = rng.integers(0, 2**15, size=tokens).astype(np.int16)
            self.refs.append((step, "a fresh int16 array", weakref.ref(fresh_arr)))
            calls.append(
                (
                    "token_types",
                    fresh_arr,
                    {"dtype": torch.int32},
                    fresh_arr.astype(np.int32),
                    f"a fresh int16 array of {tokens} into int32",
                )
            )
            del fresh, fresh_arr
        results: list[tuple[str, torch.Tensor, np.ndarray, str]] = []
        # Judged by the stream's own state: the previous step's forward pass must still run when the calls
        # begin (else the host's preparation outlasted it: no evidence, and more work is queued from now on).
        judged = timed and self.forward_done is not None and not self.forward_done.query()
        if timed and self.forward_done is not None and not judged:
            self.unjudged += 1
            self.busy_ms = min(MAX_BUSY_MS, self.busy_ms * CONFIRM_FACTOR)
        # The engine's ordering on the device: the copy stream overwrites the static device tensors and the
        # buffers' .gpu only after the consumer of the previous step has read them (an event, never the host).
        s.wait(self.copy_stream, self.consumed)
        with s.use(self.copy_stream):
            for name, data, kw, expected, what in calls:
                result = target.call(data, {"device": device, **kw})
                if result.device.type == "cpu" and not target.host_copy:
                    # a host path standing in for a device copy may return its input (vLLM's t.to("cpu")): read it now
                    result = result.clone()
                results.append(
                    (name, result, expected, f"async_tensor_h2d({what}, device={device!s}, dtype={kw['dtype']})")
                )
                if name == "positions":  # the engine reuses its array at once: a staged source may be overwritten
                    self.positions_np[:tokens] = -1
            if self.has_out:
                slots = rng.integers(0, 2**40, size=tokens)
                lens = rng.integers(1, 2**20, size=reqs).astype(np.int32)
                for name, data, n, what in (
                    ("slot_mapping", slots, tokens, f"int64 array of {tokens}"),
                    ("seq_lens", lens.tolist(), reqs, f"list of {reqs} ints"),
                ):
                    if (
                        name == "seq_lens"
                        and "list" not in self.kinds
                        or name == "slot_mapping"
                        and "ndarray" not in self.kinds
                    ):
                        continue
                    out = self.static[name][:n]
                    target.call(data, {"out": out, "dtype": out.dtype})
                    results.append(
                        (
                            f"static {name}",
                            out,
                            np.asarray(data).astype(np.int64 if name == "slot_mapping" else np.int32),
                            f"async_tensor_h2d({what}, out=static {name}[:{n}])",
                        )
                    )
            for name, buf in self.buffers.items():
                buf.copy_to_gpu(tokens)
                results.append(
                    (
                        f"buffer {name}",
                        buf.gpu[:tokens],
                        buf.np[:tokens].astype(np.int32 if name == "input_ids" else np.int64),
                        f"{name}.copy_to_gpu({tokens})",
                    )
                )
        if judged:
            self._judge_wait(step, "; ".join(r[3] for r in results))
        copied = s.record(self.copy_stream)
        if self.buffers:
            self.pending_buffer_event = copied
        s.wait(0, copied)
        with s.use(0):
            statics = self._replay() if self.mode == "graph" and self.has_out else None
            for name, result, expected, call in results:
                if statics is not None and name.startswith("static "):
                    key = name.removeprefix("static ")
                    result = statics[key][: len(expected)]
                self._consume(step, name, result, expected, call)
            self.consumed = s.record(0)
        del results
        if self.busy_ms:
            self.forward_done = s.busy(0, self.busy_ms)  # this step's forward pass, queued behind its inputs

    def _judge_wait(self, step: int, calls: str) -> None:
        """The calls of a judged step returned: did they outlast the forward pass that was running when they began?

        Once is a suspicion (the host may have been preempted): the next forward pass is queued
        with ``CONFIRM_FACTOR`` times the work, and only a second judged step in a row that
        outlasts it concludes that the calls waited for the stream (:attr:`blocked`).
        """
        if not self.forward_done.query():
            self.suspect = None  # returned while the work still ran: an earlier suspicion was the host's
            return
        if self.suspect is not None:
            self.blocked += [self.suspect, (step, calls, self.busy_ms)]
            return
        self.suspect = (step, calls, self.busy_ms)
        self.busy_ms = min(MAX_BUSY_MS, self.busy_ms * CONFIRM_FACTOR)

    def dropped_buffer(self, step: int) -> None:
        """Create and drop a buffer (a request's scratch), as engines do when a batch shape changes."""
        if "buffer" not in self.target.capabilities:
            return
        buf = make_buffer(
            self.target,
            {"size": (17 + step,), "dtype": torch.float32, "pin_memory": self.target.pins_host(), "with_numpy": True},
            self.device,
        )
        buf.np[:] = step
        buf.copy_to_gpu(17 + step)
        self.refs.append((step, "a dropped CpuGpuBuffer", weakref.ref(buf)))
        del buf


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
    """step-loop: an engine's step loop of ``plan`` (:func:`step_loop_plan`) on ``device``; see the module docstring.

    Raises:
        ContractViolation: a step's consumed input differs from what the host meant, a
            step's calls waited for the stream (CUDA), a fresh input or dropped buffer is
            still referenced at quiescence, or pinned/device bytes grew past the warm-up.
        NotApplicable: the target takes none of the loop's inputs, or ``graph`` mode
            without ``out`` on CUDA.
    """
    mode = plan["mode"]
    lanes = 3 if mode == "threads" else 1
    loops = [_Loop(target, device, plan, lane) for lane in range(lanes)]
    if not (loops[0].kinds or loops[0].buffers):
        raise NotApplicable(
            f"contract 'step-loop': target {target.name!r} takes none of list, ndarray, tensor and has no buffer"
        )
    cuda = device.type == "cuda"
    if mode == "graph" and cuda:
        if not loops[0].has_out:
            raise NotApplicable(
                f"contract 'step-loop': graph mode fills static device buffers with out=, which target {target.name!r} does not take"
            )
        loops[0]._capture_graph()
    # Warm-up: two steps untimed (caches, pools, the graph); the second, warm, step's host time calibrates
    # the forward pass queued behind each later step: ten times it, at least 20 ms, at most 200 ms, so a
    # step that does not wait for the stream returns long before that work ends, on a loaded host too.
    warm = 0.0
    for loop in loops:
        loop.step(0, timed=False)
        t0 = time.perf_counter()
        loop.step(1, timed=False)
        warm = max(warm, time.perf_counter() - t0)
    if cuda:
        cycles_per_ms(device)
        for loop in loops:
            loop.busy_ms = min(200.0, max(20.0, 10_000 * warm))
    for loop in loops:
        loop.seen.clear()
        loop.refs.clear()
    synchronize(device)
    base = quiescent_bytes(device, target.empty_cache) if cuda else (0, 0)
    errors: list[BaseException] = []

    def run(loop: _Loop) -> None:
        try:
            for s in range(2, plan["steps"] + 2):
                loop.step(s, timed=cuda)
                if loop.blocked:
                    break  # concluded: the rest of the loop would wait out its forward passes again
                if s % 3 == 0:
                    loop.dropped_buffer(s)
        except BaseException as exc:  # noqa: BLE001 - a thread's exception is raised in the caller below
            errors.append(exc)

    if lanes == 1:
        run(loops[0])
    else:
        threads = [threading.Thread(target=run, args=(loop,), name=f"step-loop-lane-{loop.lane}") for loop in loops]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    if errors:
        raise errors[0]
    synchronize(device)
    _judge(loops, plan, device)
    for loop in loops:
        loop.seen.clear()
        loop.forward_done = loop.pending_buffer_event = None
    retained = _retained(loops, target)
    if retained:
        step, what = retained[0]
        fail(
            "step-loop",
            f"step loop ({mode}): {what} of step {step} is still referenced at quiescence ({len(retained)} fresh inputs or dropped buffers of {plan['steps']} steps)",
            got="a live reference after the target's empty_cache and a garbage collection",
            expected="nothing of an earlier step retained",
        )
    if cuda:
        host, dev = quiescent_bytes(device, target.empty_cache)
        if host > base[0] or dev > base[1]:
            fail(
                "step-loop",
                f"step loop ({mode}): memory grew over {plan['steps']} steps with fresh inputs",
                got=f"pinned host {host:,} B, device {dev:,} B",
                expected=f"at most the warm-up reading (pinned host {base[0]:,} B, device {base[1]:,} B)",
            )


# --------------------------------------------------------------------------- multi-stream schedules


def _source(kind: str, n: int, step: int, target: Target, device: torch.device) -> Any:
    values = (np.arange(n, dtype=np.int64) * 7919 + step * 104729) % (2**31 - 1)
    if kind == "list":
        return values.tolist()
    if kind == "ndarray" or kind == "out":
        return values.astype(np.int32)
    if kind == "pinned-ndarray":  # a numpy view of pinned memory (a CpuGpuBuffer's .np): an array, so staged
        arr = values.astype(np.int32)
        return torch.from_numpy(arr).pin_memory().numpy() if target.pins_host() else arr
    t = torch.from_numpy(values.astype(np.int32))
    if kind == "pinned-tensor" and target.pins_host():
        return t.pin_memory()
    return t


def _overwrite(data: Any) -> None:
    if isinstance(data, list):
        data[:] = [-1] * len(data)
    elif isinstance(data, np.ndarray):
        data[:] = -1
    elif isinstance(data, torch.Tensor):
        data.fill_(-1)


@check("multi-stream")
def check_streams(target: Target, device: torch.device, schedule: list[tuple[str, int, int, int, bool]]) -> None:
    """multi-stream: replay ``schedule`` and check every result after synchronising.

    ``schedule``: ``(kind, n, stream, busy, overwrite)`` per call: ``kind`` one of
    :data:`MULTI_STREAM_KINDS`; ``n`` elements (int32); the call made with stream
    ``stream`` (0 the current one, 1-2 side streams) current; ``busy`` > 0 queues that many
    ms of spin work on that stream first (``busy`` 0: none); ``overwrite``: the host
    overwrites the source right after the call, which the contract allows for staged
    sources (lists, arrays, pageable tensors); a pinned tensor and a buffer's ``.cpu`` are
    never overwritten (the documented hazard). On the host, streams and spin work are
    no-ops.

    Raises:
        ContractViolation: a result differs from the source at its call.
    """
    streams = StreamSet(device, 3)
    kept: list[tuple[int, Any, torch.Tensor, np.ndarray]] = []
    for i, (kind, n, stream, busy_ms, overwrite) in enumerate(schedule):
        if busy_ms:
            streams.busy(stream, float(busy_ms))
        with streams.use(stream):
            if kind == "buffer":
                # a new buffer per call: one whose copy is queued is never refilled (the documented hazard)
                buf = make_buffer(
                    target,
                    {"size": (n,), "dtype": torch.int32, "pin_memory": target.pins_host(), "with_numpy": True},
                    device,
                )
                buf.np[:] = _source("ndarray", n, i, target, device)
                buf.copy_to_gpu(n)
                kept.append((i, buf, buf.gpu[:n], buf.np.copy()))
                continue
            data = _source(kind, n, i, target, device)
            expected = np.asarray(data.numpy() if isinstance(data, torch.Tensor) else data, dtype=np.int32).copy()
            if kind == "out":
                out = torch.full((n,), -7, dtype=torch.int32, device=device)
                result = target.call(data, {"out": out, "dtype": torch.int32})
            else:
                result = target.call(data, {"device": device, "dtype": torch.int32})
            if result.device.type == "cpu" and not target.host_copy:
                result = result.clone()  # a host path standing in for a device copy may return its input
            if overwrite and not (isinstance(data, torch.Tensor) and data.is_pinned()):
                _overwrite(data)
            kept.append((i, data, result, expected))
    streams.synchronize()
    for i, _, result, expected in kept:
        got = result.cpu().numpy()
        if not np.array_equal(got, expected):
            bad = np.flatnonzero(got != expected)
            kind, n, stream, busy_ms, overwrite = schedule[i]
            fail(
                "multi-stream",
                f"call {i} of {len(schedule)} ({kind} of {n} on stream {stream}{f', behind {busy_ms} ms' if busy_ms else ''}{', source overwritten after the call' if overwrite else ''}): {len(bad)} of {n} elements differ, first at {int(bad[0])}",
                got=int(got[bad[0]]),
                expected=int(expected[bad[0]]),
                call=f"schedule {schedule!r}",
            )


def _schedules(target: Target, device: torch.device) -> st.SearchStrategy[list[tuple[str, int, int, int, bool]]]:
    kinds = [k for k in MULTI_STREAM_KINDS if k.removeprefix("pinned-") in target.inputs]
    kinds += [
        k
        for k in ("out", "buffer")
        if k in target.capabilities and "ndarray" in target.inputs or k == "buffer" and k in target.capabilities
    ]
    kinds = sorted(set(kinds), key=MULTI_STREAM_KINDS.index)
    if not kinds:
        raise NotApplicable(f"contract 'multi-stream': target {target.name!r} takes none of {MULTI_STREAM_KINDS}")
    one = st.tuples(
        st.sampled_from(kinds),
        st.sampled_from(MULTI_STREAM_SIZES),
        st.integers(0, 2),
        st.sampled_from((0, 0, 5, 20)) if device.type == "cuda" else st.just(0),
        st.booleans(),
    )
    return st.lists(one, min_size=1, max_size=8)


@prop("multi-stream")
def prop_multi_stream(target: Target, device: torch.device, **overrides: Any) -> None:
    """multi-stream: drawn schedules of calls over three streams, some streams busy, some sources overwritten after the call."""
    require_device(target, device, "multi-stream")
    schedules = _schedules(target, device)

    def body(data: st.DataObject) -> None:
        check_streams(target, device, data.draw(schedules, label="schedule"))

    run_given(body, overrides, cap=30)


@prop("multi-stream", table=True)
def prop_multi_stream_table(target: Target, device: torch.device, **overrides: Any) -> None:
    """multi-stream: fixed interleavings (a table): a call on a busy side stream, then calls on an idle stream reusing staging memory."""
    require_device(target, device, "multi-stream")
    del overrides
    kinds: list[str] = [k for k in ("list", "ndarray", "tensor") if k in target.inputs]
    if not kinds:
        raise NotApplicable(f"contract 'multi-stream': target {target.name!r} takes none of list, ndarray, tensor")
    slow = 20 if device.type == "cuda" else 0
    if "ndarray" in kinds:
        kinds.append("pinned-ndarray")
    for kind in kinds:
        for n in (17, 4097, 262145):
            check_streams(
                target,
                device,
                [(kind, n, 1, slow, True), (kind, n, 0, 0, True), (kind, n, 2, 0, True), (kind, n, 1, 0, True)],
            )
            check_streams(
                target,
                device,
                [(kind, n, 0, slow, True), (kind, n, 1, 0, True), (kind, n, 1, slow, True), (kind, n, 0, 0, True)],
            )
        # one small call waits behind a busy stream while 161 small calls on an idle one cycle the small-payload
        # staging memory (16 KiB each: 2.5 MiB, past a pool chunk of 1 MiB twice): a chunk shared by the two
        # streams and taken back by the idle stream's event is overwritten under the waiting copy
        for busy_stream, idle in ((1, 0), (0, 1)):
            first = [(kind, 4097, idle, 0, True), (kind, 4097, busy_stream, 5 * slow, True)]  # the idle stream opens it
            check_streams(target, device, first + [(kind, 4097, idle, 0, True)] * 160)


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
