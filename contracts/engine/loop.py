"""One engine's step loop: its persistent state (buffers, a host array overwritten every step, static device tensors
read by a CUDA graph), and each step prepared, copied and consumed, with the judging of whether a step's calls
waited for the stream."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import torch

from h2d_contracts.harness.target import Target

from ..buffer import make_buffer
from ..gpu.timing import CONFIRM_FACTOR, MAX_BUSY_MS
from .streams import StreamSet


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
        s = self.streams
        calls = self._prepare(step, rng, tokens, reqs)
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
            results = self._copy(calls, rng, tokens, reqs)
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

    def _prepare(
        self, step: int, rng: np.random.Generator, tokens: int, reqs: int
    ) -> list[tuple[str, Any, dict[str, Any], np.ndarray, str]]:
        """The host's side of a step: refill the buffers (after the documented wait) and build the step's calls.

        Each call is ``(name, data, keyword arguments, the values the host means, what it is)``; a fresh
        tensor or array is recorded in :attr:`refs` (it must be garbage at quiescence).
        """
        target = self.target
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
            calls += self._fresh_calls(step, rng, tokens, target.pins_host())
        return calls

    def _fresh_calls(
        self, step: int, rng: np.random.Generator, tokens: int, pin: bool
    ) -> list[tuple[str, Any, dict[str, Any], np.ndarray, str]]:
        """A fresh (pinned where the host pins) float32 tensor and a fresh int16 array of this step, each recorded in :attr:`refs`."""
        fresh = torch.empty(tokens, dtype=torch.float32, pin_memory=pin)
        fresh.copy_(torch.from_numpy(rng.standard_normal(tokens).astype(np.float32)))
        self.refs.append((step, "a fresh pinned tensor" if fresh.is_pinned() else "a fresh tensor", weakref.ref(fresh)))
        calls: list[tuple[str, Any, dict[str, Any], np.ndarray, str]] = [
            (
                "temperature",
                fresh,
                {"dtype": torch.float32},
                fresh.numpy().copy(),
                f"a fresh {'pinned ' if fresh.is_pinned() else ''}float32 tensor of {tokens}",
            )
        ]
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
        return calls

    def _copy(
        self,
        calls: list[tuple[str, Any, dict[str, Any], np.ndarray, str]],
        rng: np.random.Generator,
        tokens: int,
        reqs: int,
    ) -> list[tuple[str, torch.Tensor, np.ndarray, str]]:
        """Make the step's calls, then its ``out=`` copies into the static device tensors and its buffers' ``copy_to_gpu``
        (on the current stream, which :meth:`step` sets): ``(name, result, the values meant, the call)`` of each."""
        target, device = self.target, self.device
        results: list[tuple[str, torch.Tensor, np.ndarray, str]] = []
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
            results += self._copy_static(rng, tokens, reqs)
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
        return results

    def _copy_static(
        self, rng: np.random.Generator, tokens: int, reqs: int
    ) -> list[tuple[str, torch.Tensor, np.ndarray, str]]:
        """``out=`` copies of a step's slot mapping and sequence lengths into the leading rows of the static device tensors."""
        results: list[tuple[str, torch.Tensor, np.ndarray, str]] = []
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
            self.target.call(data, {"out": out, "dtype": out.dtype})
            results.append(
                (
                    f"static {name}",
                    out,
                    np.asarray(data).astype(np.int64 if name == "slot_mapping" else np.int32),
                    f"async_tensor_h2d({what}, out=static {name}[:{n}])",
                )
            )
        return results

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
