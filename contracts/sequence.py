"""Contract ``sequence``: calls in sequence on the same host objects, as an engine's step loop makes them.

Engines keep persistent host objects (input ids, positions, slot mappings: a pinned tensor,
a numpy view of it, a ``CpuGpuBuffer``), refill them in place every step and upload them
again, often a leading slice ``buf[:num_tokens]`` whose data pointer never changes. A
contract that calls each drawn input once never sees an implementation that caches by
object identity, by data pointer or by tensor version, that hands back one persistent
output buffer, or that copies up to the largest ``n`` seen so far. This one keeps the host
objects alive across calls:

- every result equals the host's state *at that call* (never stale);
- a result is never the same object, nor memory, as an earlier one (``out=`` aside: it
  returns ``out``, and then supersedes the results written there before);
- no later call or host write changes a result already returned;
- ``CpuGpuBuffer.copy_to_gpu(n)`` copies exactly the rows ``[0, n)`` as they are at that call,
  whether ``.cpu`` was written through ``.np`` or through the tensor.

The ops of a run form a log (``("new", ...)``, ``("fill", ...)``, ``("call", ...)``,
``("copy", ...)``, ``("drop", ...)``): :func:`check_sequence` replays one log as a single
check, so a falsifying example found by the Hypothesis state machine
(:func:`sequence_machine`) reproduces as one call. On the host, a target whose host path
stands in for a device copy (:attr:`Target.host_copy` False: vLLM's ``t.to("cpu")``)
may return its input itself; its results from arrays and tensors are then judged at the
call only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule, run_state_machine_as_test

import h2d_contracts.strategies as hs
from h2d_contracts.harness.calling import call_valid, expect_raise, synchronize
from h2d_contracts.harness.checks import check, reproduce
from h2d_contracts.harness.oracle import assert_same_values, storage_span
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import SUPPRESS, accepted, nondeterministic, require_device
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import ContractViolation, fail
from h2d_contracts.strategies import errors

from .buffer import host_aliased, make_buffer, wait

__all__ = ["SEQUENCE_KINDS", "SEQUENCE_SIZES", "check_sequence", "sequence_machine"]

#: Host objects a sequence keeps alive: ``buffer`` is a ``CpuGpuBuffer`` (its ``.np`` and
#: ``.cpu`` written, ``copy_to_gpu(n)`` called); the others are passed to ``async_tensor_h2d``.
SEQUENCE_KINDS = ("tensor", "pinned-tensor", "ndarray", "list", "buffer")

#: Capacities of the persistent objects: small, past a block of 256 and past 8,192 (a cache
#: or a pool keyed by size class sits at such a boundary).
SEQUENCE_SIZES = (1, 5, 64, 257, 1025, 8193)

#: The dtypes of persistent engine inputs (token ids, positions, slot mappings, logits).
SEQUENCE_DTYPES = (torch.int32, torch.int64, torch.float32)

#: Results kept alive and re-checked after every op (the newest ones).
LIVE_RESULTS = 8


class _Sequence:
    """The host objects of a sequence, their model (what the host holds), and the results handed out so far."""

    def __init__(self, target: Target, device: torch.device) -> None:
        self.target, self.device = target, device
        self.objects: dict[str, Any] = {}
        self.model: dict[str, torch.Tensor] = {}
        self.gpu_model: dict[str, torch.Tensor] = {}
        self.outs: dict[str, torch.Tensor] = {}
        self.floats: dict[str, torch.Tensor] = {}  # per element of a list: is it a Python float (the list's own dtype)
        self.last_n: dict[str, int | None] = {}
        self.live: list[tuple[str, torch.Tensor, torch.Tensor, str, bool]] = []
        self.step = 0

    # ----------------------------------------------------------------- ops

    def apply(self, op: tuple[Any, ...]) -> None:
        """Run one op on the objects and the model; a violation where the target disagrees with the model."""
        self.step += 1
        getattr(self, "_" + op[0])(*op[1:])
        self._recheck()

    def _new(self, name: str, kind: str, dtype_name: str, n: int) -> None:
        dtype = getattr(torch, dtype_name)
        # a list's values stay exact in float32, so a list turned mixed (ints and floats) converts exactly
        values = hs.bulk_values(n, dtype, offset=self.step, exact_in=(torch.float32,) if kind == "list" else ())
        if kind == "buffer":
            # pinned as an engine asks for it: where its platform says pinning works (vLLM's
            # is_pin_memory_available()); the buffer contract judges pin_memory=True elsewhere
            spec = {
                "size": (n,),
                "dtype": dtype,
                "pin_memory": self.target.pins_host(),
                "with_numpy": True,
            }
            buf = make_buffer(self.target, spec, self.device)
            buf.np[:] = values.numpy()
            self.objects[name] = buf
            self.gpu_model[name] = (
                torch.zeros_like(values) if not host_aliased(buf) else values.clone()
            )  # zero-initialised
        elif kind in ("tensor", "pinned-tensor"):
            pin = kind == "pinned-tensor" and hs.pinning_available()
            t = torch.empty(n, dtype=dtype, pin_memory=pin)
            t.copy_(values)
            self.objects[name] = t
        elif kind == "ndarray":
            self.objects[name] = values.numpy().copy()
        else:
            self.objects[name] = values.tolist()
            self.floats[name] = torch.full((n,), dtype.is_floating_point)
        self.model[name] = values.clone()

    def _fill(self, name: str, lo: int, hi: int, seed: int, via: str) -> None:
        """Overwrite elements ``[lo, hi)`` in place, as an engine refills its step inputs.

        ``via``: for a buffer or a tensor "np" (through a numpy view: the tensor's version
        counter does not move) or "tensor" (through the tensor); for a list
        "float" writes the (integral) values as Python floats, which changes the list's own
        dtype, else as the model's kind of number.
        """
        obj, model = self.objects[name], self.model[name]
        values = hs.bulk_values(
            hi - lo, model.dtype, offset=seed, exact_in=(torch.float32,) if isinstance(obj, list) else ()
        )
        synchronize()  # never overwrite host memory a queued copy may still read (the documented hazard)
        if isinstance(obj, torch.Tensor):
            if via == "np":
                obj.numpy()[lo:hi] = (
                    values.numpy()
                )  # through a numpy view, as engines fill their pinned inputs: no version bump
            else:
                obj[lo:hi] = values
        elif isinstance(obj, np.ndarray):
            obj[lo:hi] = values.numpy()
        elif isinstance(obj, list):
            as_float = via == "float" or model.dtype.is_floating_point
            obj[lo:hi] = values.to(torch.float64).tolist() if as_float else values.tolist()
            self.floats[name][lo:hi] = as_float
        else:
            wait(obj)
            if via == "np":
                obj.np[lo:hi] = values.numpy()  # a write through .np does not bump the tensor's version counter
            else:
                obj.cpu[lo:hi] = values
            if host_aliased(obj):
                self.gpu_model[name][lo:hi] = values
        model[lo:hi] = values

    def _call(self, name: str, k: int | None, route: str) -> None:
        """``async_tensor_h2d(obj[:k], ...)`` by ``route``: "device", "dtype" (named explicitly) or "out" (a persistent out)."""
        obj, model = self.objects[name], self.model[name]
        data = obj if k is None else obj[:k]
        expected = (model if k is None else model[:k]).clone()
        kwargs: dict[str, Any] = {"device": self.device}
        if route == "out":
            out = self.outs.get(name)
            if out is None or out.shape != expected.shape:
                out = self.outs[name] = torch.zeros(expected.shape, dtype=model.dtype, device=self.device)
            kwargs = {"out": out}
            self.live = [r for r in self.live if r[3] != "out:" + name]  # results written there before are superseded
        elif route == "dtype" or "dtype" in self.target.requires:
            kwargs["dtype"] = model.dtype
        elif isinstance(obj, list):
            # no dtype: the list's own, float32 (torch's default float dtype) with a float in it, else int64
            floaty = self.floats[name] if k is None else self.floats[name][:k]
            expected = expected.to(torch.get_default_dtype() if bool(floaty.any()) else torch.int64)
        call = self.target.describe_call(data, kwargs) + f"  # step {self.step} of the sequence"
        result = call_valid("sequence", self.target, data, kwargs)
        synchronize(self.device)
        assert_same_values(
            result, expected, contract="sequence", call=call + ": the result against the host's data at this call"
        )
        # vLLM-style host paths (t.to("cpu")) return an array's or tensor's own memory on the host: judged at the call only
        judged_later = not (self.device.type == "cpu" and not self.target.host_copy and not isinstance(obj, list))
        if route != "out" and judged_later:
            for earlier_name, earlier, _, earlier_route, _ in self.live:
                if result is earlier:
                    fail(
                        "sequence",
                        "a result is the same object as an earlier result",
                        got=f"the result of {earlier_name} ({earlier_route})",
                        expected="a new tensor",
                        call=call,
                    )
                a, b = storage_span(result), storage_span(earlier)
                if (
                    a
                    and b
                    and result.numel()
                    and earlier.numel()
                    and a[0] < b[1]
                    and b[0] < a[1]
                    and result.device == earlier.device
                ):
                    fail(
                        "sequence",
                        "a result shares memory with an earlier result",
                        got=f"result {a} vs the result of {earlier_name} {b}",
                        expected="disjoint",
                        call=call,
                    )
        self.live.append((name, result, expected, "out:" + name if route == "out" else route, judged_later))
        self.live = self.live[-LIVE_RESULTS:]

    def _copy(self, name: str, n: int | None) -> None:
        """``buf.copy_to_gpu(n)``: rows ``[0, n)`` as the host holds them now; the rows past ``n`` of ``.gpu`` as before."""
        buf, model, gpu = self.objects[name], self.model[name], self.gpu_model[name]
        rows = len(model) if n is None else n
        self.last_n[name] = n
        returned = buf.copy_to_gpu(n)
        gpu[:rows] = model[:rows]
        wait(buf)
        synchronize()
        call = f"buf.copy_to_gpu({n})  # step {self.step} of the sequence; buf = {self._buffer_repr(buf)}"
        assert_same_values(
            buf.gpu, gpu, contract="sequence", call=call + ": .gpu against the host rows copied at each copy_to_gpu"
        )
        if tuple(returned.shape) != (rows,):
            fail(
                "sequence",
                "copy_to_gpu(n) returned a view of another size",
                got=tuple(returned.shape),
                expected=(rows,),
                call=call,
            )

    def _misfit(self, name: str, k: int) -> None:
        """The persistent ``out`` of ``name`` (made by an earlier "out" call) with data of another shape, ``obj[:k]``: refused, out untouched.

        An out validated once and then trusted (a cache of checked outs) broadcasts ``[x]``
        into it the second time.
        """
        obj, out = self.objects[name], self.outs[name]
        kwargs: dict[str, Any] = {"out": out}
        expect_raise(
            "sequence",
            self.target,
            obj[:k],
            kwargs,
            errors.SHAPE_MISMATCH,
            f"step {self.step}: data of shape ({k},) into the persistent out of shape {tuple(out.shape)}",
        )

    def _drop(self, name: str) -> None:
        """Release a host object (a buffer of a finished request): later calls must not see its memory."""
        del self.objects[name]
        del self.model[name]
        self.gpu_model.pop(name, None)
        self.floats.pop(name, None)
        self.outs.pop(name, None)  # results written into it stay live: a result outlives its host object

    @staticmethod
    def _buffer_repr(buf: Any) -> str:
        return f"CpuGpuBuffer({len(buf.cpu)}, dtype={buf.cpu.dtype})"

    def _recheck(self) -> None:
        """Every live result still equals what the host held when it was made."""
        synchronize()
        for name, result, expected, route, judged in self.live:
            if not judged:
                continue
            assert_same_values(
                result,
                expected,
                contract="sequence",
                call=f"the result of an earlier call on {name} ({route}), re-read after step {self.step}: changed by a later call or host write",
            )


@check("sequence")
def check_sequence(target: Target, device: torch.device, ops: list[tuple[Any, ...]]) -> None:
    """sequence: replay an op log on persistent host objects; every result matches the host at its call and stays so.

    ``ops`` (see the module docstring): ``("new", name, kind, dtype_name, n)`` with ``kind``
    one of :data:`SEQUENCE_KINDS`; ``("fill", name, lo, hi, seed, via)`` writes new values into
    elements ``[lo, hi)`` (``via`` "np" or "tensor" for a buffer); ``("call", name, k, route)``
    calls ``async_tensor_h2d`` on ``obj[:k]`` (``k`` None: the whole object) with route
    "device", "dtype" or "out"; ``("misfit", name, k)`` passes ``obj[:k]`` into the persistent
    out of an earlier "out" call, a shape that must be refused; ``("copy", name, n)`` is
    ``buf.copy_to_gpu(n)``; ``("drop", name)`` releases the object. What :func:`sequence_machine` runs, as one
    replayable call.
    """
    seq = _Sequence(target, device)
    for op in ops:
        seq.apply(op)


class _SequenceMachine(RuleBasedStateMachine):
    """The rules of :func:`sequence_machine` that need only its target and device (class attributes set per machine).

    :func:`sequence_machine` subclasses it with the rule that makes new objects, which draws from its kinds and sizes.
    """

    target: Target
    device: torch.device

    def __init__(self) -> None:
        super().__init__()
        self.seq = _Sequence(self.target, self.device)
        self.ops: list[tuple[Any, ...]] = []
        self.count = 0

    def _run(self, op: tuple[Any, ...]) -> None:
        self.ops.append(op)
        try:
            self.seq.apply(op)
        except ContractViolation as exc:
            raise reproduce(exc, check_sequence, self.target, self.device, list(self.ops)) from None

    def _pick(self, data: st.DataObject, buffers: bool | None = None) -> str:
        names = sorted(
            n
            for n, o in self.seq.objects.items()
            if buffers is None or (isinstance(o, (torch.Tensor, np.ndarray, list)) != buffers)
        )
        return data.draw(st.sampled_from(names), label="object")

    def _has(self, buffers: bool | None = None) -> bool:
        return any(
            buffers is None or (isinstance(o, (torch.Tensor, np.ndarray, list)) != buffers)
            for o in self.seq.objects.values()
        )

    @precondition(lambda self: self._has())
    @rule(data=st.data())
    def fill(self, data: st.DataObject) -> None:
        name = self._pick(data)
        n = len(self.seq.model[name])
        lo = data.draw(st.integers(0, n - 1), label="first element")
        hi = data.draw(st.integers(lo + 1, n), label="end")
        via = data.draw(st.sampled_from(["np", "tensor", "float"]), label="via")
        self._run(("fill", name, lo, hi, data.draw(st.integers(0, 10**6), label="seed"), via))

    @precondition(lambda self: self._has(buffers=False))
    @rule(data=st.data())
    def call(self, data: st.DataObject) -> None:
        name = self._pick(data, buffers=False)
        n = len(self.seq.model[name])
        k = data.draw(st.none() | st.integers(1, n), label="leading elements")
        routes = ["device", "dtype"] + (["out"] if "out" in self.target.capabilities else [])
        self._run(("call", name, k, data.draw(st.sampled_from(routes), label="route")))

    @precondition(lambda self: self._has(buffers=True))
    @rule(data=st.data())
    def copy(self, data: st.DataObject) -> None:
        name = self._pick(data, buffers=True)
        n = len(self.seq.model[name])
        # the same n again (after a refill), the whole buffer, and any n
        choice = data.draw(st.sampled_from(["again", "whole", "none", "any"]), label="which n")
        rows = (
            self.seq.last_n.get(name)
            if choice == "again"
            else n
            if choice == "whole"
            else None
            if choice == "none"
            else data.draw(st.integers(0, n), label="n")
        )
        self._run(("copy", name, rows))

    def _misfits(self, name: str) -> list[int]:
        """Lengths of ``obj[:k]`` that differ from the persistent out's (one element: a broadcast; one short, one long)."""
        size, out_len = len(self.seq.model[name]), len(self.seq.outs[name])
        return sorted({k for k in (1, out_len - 1, out_len + 1) if 1 <= k <= size and k != out_len})

    @precondition(lambda self: any(name in self.seq.objects and self._misfits(name) for name in self.seq.outs))
    @rule(data=st.data())
    def misfit(self, data: st.DataObject) -> None:
        name = data.draw(
            st.sampled_from(sorted(n for n in self.seq.outs if n in self.seq.objects and self._misfits(n))),
            label="object",
        )
        self._run(("misfit", name, data.draw(st.sampled_from(self._misfits(name)), label="leading elements")))

    @precondition(lambda self: self._has())
    @rule(data=st.data())
    def drop(self, data: st.DataObject) -> None:
        self._run(("drop", self._pick(data)))


def sequence_machine(
    target: Target, device: torch.device, kinds: tuple[str, ...], sizes: tuple[int, ...] = SEQUENCE_SIZES
) -> type[RuleBasedStateMachine]:
    """A Hypothesis state machine of up to three persistent host objects of ``kinds``, refilled and uploaded in any order.

    A violation carries the reproduction of the whole op log (:func:`check_sequence`);
    shrinking removes the ops that do not matter.
    """

    class SequenceMachine(_SequenceMachine):
        @precondition(lambda self: len(self.seq.objects) < 3)
        @rule(kind=st.sampled_from(kinds), dtype=st.sampled_from(SEQUENCE_DTYPES), n=st.sampled_from(sizes))
        def new(self, kind: str, dtype: torch.dtype, n: int) -> None:
            self.count += 1
            self._run(("new", f"o{self.count}", kind, str(dtype).removeprefix("torch."), n))

    SequenceMachine.target, SequenceMachine.device = target, device
    SequenceMachine.__name__ = f"SequenceMachine[{target.name}, {device}]"
    return SequenceMachine


@prop("sequence", table=True)
def prop_sequence_steps(target: Target, device: torch.device, **overrides: Any) -> None:
    """sequence: a fixed engine step loop: one persistent input of each kind refilled and uploaded ten times, whole and as a leading slice (a table)."""
    require_device(target, device, "sequence")
    del overrides  # deterministic: the same loop every run
    kinds: list[str] = [k for k in ("tensor", "ndarray", "list") if k in target.inputs]
    if "buffer" in target.capabilities:
        kinds.append("buffer")
    if not kinds:
        accepted(target, ["tensor", "ndarray", "list"], "sequence")
    routes = ["device", "dtype"] + (["out"] if "out" in target.capabilities else [])
    for kind in kinds:
        for n in (257, 8193):
            ops: list[tuple[Any, ...]] = [("new", "x", kind, "int32", n)]
            for step in range(10):
                via = ("np", "tensor", "float")[step % 3] if kind != "buffer" else ("np" if step % 2 else "tensor")
                # odd steps leave the first element as it was: a copy skipped because "row 0 is unchanged" is stale
                ops.append(("fill", "x", step % 2, n - step, 1000 * step + n, via))
                if kind == "buffer":
                    ops.append(("copy", "x", None if step % 4 == 0 else n - step // 2 * 2))  # the same n twice in a row
                else:
                    ops.append(("call", "x", None if step % 2 else n - step, routes[step % len(routes)]))
                    # every step ends with the whole input by the plainest route, so the next step's refill meets
                    # an earlier call of the same key: through a numpy view (no version bump) an upload memoised
                    # by version is stale, and a refill that keeps both ends defeats a cache keyed by length and
                    # ends, every run (the drawn state machine met these only at some seeds)
                    ops.append(("call", "x", None, "device"))
            if "out" in target.capabilities and kind != "buffer":
                ops += [("call", "x", None, "out"), ("misfit", "x", 1), ("call", "x", None, "out")]
            check_sequence(target, device, ops)


@prop("sequence")
def prop_sequence(target: Target, device: torch.device, **overrides: Any) -> None:
    """sequence: persistent tensors, arrays, lists and CpuGpuBuffers refilled in place and uploaded again, in any order (a state machine)."""
    require_device(target, device, "sequence")
    kinds = tuple(accepted(target, ["tensor", "ndarray", "list"], "sequence"))
    # a pinned tensor falls back to a pageable one where this host cannot pin
    kinds += ("pinned-tensor",) if "tensor" in kinds else ()
    kinds += ("buffer",) if "buffer" in target.capabilities else ()
    machine = sequence_machine(target, device, kinds)
    kw: dict[str, Any] = {"suppress_health_check": SUPPRESS, "deadline": None, "stateful_step_count": 16}
    kw["max_examples"] = min(settings().max_examples, 30)
    kw.update({k: v for k, v in overrides.items() if k != "max_kinds"})
    try:
        run_state_machine_as_test(machine, settings=settings(**kw))
    except Flaky as exc:
        raise nondeterministic(exc, "sequence", "prop_sequence") from exc
