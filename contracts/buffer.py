"""Contracts of ``CpuGpuBuffer`` (catalogue id ``buffer``), plus its state machine.

The state machine (:func:`buffer_state_machine`) drives random sequences of writes,
``copy_to_gpu(n)`` and ``copy_to_cpu(n)`` (out-of-range ``n`` included) against a
numpy model of both sides, kept as raw bytes so bfloat16 and float8 are modelled bit
for bit.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from . import errors
from ._report import NotApplicable, fail
from .h2d import synchronize
from .target import Target

__all__ = [
    "buffer_state_machine",
    "check_buffer_init",
    "check_copy_to_cpu",
    "check_copy_to_gpu",
    "check_numpy_view_rejected",
    "check_roundtrip_bits",
    "check_row_count_rejected",
    "make_buffer",
    "wait",
]


def _construct(target: Target, spec: dict[str, Any], device: torch.device) -> Any:
    target.require("buffer", "buffer")
    return target.buffer_cls(
        *spec["size"], dtype=spec["dtype"], device=device, pin_memory=spec["pin_memory"], with_numpy=spec["with_numpy"]
    )


def make_buffer(target: Target, spec: dict[str, Any], device: torch.device) -> Any:
    """Build ``target.buffer_cls(*spec['size'], dtype=..., device=..., pin_memory=..., with_numpy=...)`` for a valid spec.

    A valid spec that raises is a ``buffer`` violation (e.g. ``pin_memory=True`` on a host
    without pinned memory, where the documented behaviour is a pageable ``.cpu``).
    """
    __tracebackhide__ = True
    try:
        return _construct(target, spec, device)
    except NotApplicable:
        raise
    except Exception as exc:  # noqa: BLE001 - report what a valid construction raised
        pinned = "" if target.pin_memory_available() else " (pinned memory is unavailable here: pin_memory=True must fall back to pageable)"
        fail("buffer", f"a valid CpuGpuBuffer construction raised{pinned if spec['pin_memory'] else ''}", got=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}", expected="a buffer", call=repr_spec(spec, device))


def wait(buffer: Any) -> None:
    """The documented wait before reading copied values: synchronize the current stream of ``.gpu``'s device."""
    if buffer.gpu.device.type == "cuda":
        torch.cuda.current_stream(buffer.gpu.device).synchronize()


def repr_spec(spec: dict[str, Any], device: torch.device) -> str:
    """``CpuGpuBuffer(...)`` with every constructor argument of ``spec`` (as :func:`strategies.buffer_specs` gives), runnable."""
    size = ", ".join(map(str, spec["size"]))
    return f"CpuGpuBuffer({size}, dtype={spec['dtype']}, device=torch.device('{device}'), pin_memory={spec['pin_memory']}, with_numpy={spec.get('with_numpy', True)})"



def _bytes(t: torch.Tensor) -> np.ndarray:
    """Raw bytes of a tensor's elements, shape ``(rows, row_bytes)`` (any device)."""
    host = t.detach().cpu().contiguous()
    rows = host.shape[0] if host.dim() else 1
    # .copy(): a snapshot, not a view of live host memory (a view would compare rows with themselves).
    return host.view(torch.uint8).reshape(rows, -1).numpy().copy() if host.numel() else np.zeros((rows, 0), np.uint8)


def check_buffer_init(target: Target, spec: dict[str, Any], device: torch.device) -> Any:
    """buffer: shapes, dtypes, devices, zero-initialised, pinned iff asked and available, ``.np`` aliases ``.cpu``."""
    buf = make_buffer(target, spec, device)
    call = repr_spec(spec, device)
    size = tuple(spec["size"])
    for name, t, dev in (("cpu", buf.cpu, torch.device("cpu")), ("gpu", buf.gpu, device)):
        if tuple(t.shape) != size or t.dtype != spec["dtype"]:
            fail("buffer", f".{name} shape/dtype", got=(tuple(t.shape), t.dtype), expected=(size, spec["dtype"]), call=call)
        if t.device.type != dev.type or (dev.type == "cuda" and t.device.index != dev.index):
            fail("buffer", f".{name} device", got=t.device, expected=dev, call=call)
    synchronize()
    for name, t in (("cpu", buf.cpu), ("gpu", buf.gpu)):
        if t.numel() and _bytes(t).any():
            fail("buffer", f".{name} is not zero-initialised", got=f"{int((_bytes(t) != 0).sum())} non-zero bytes", expected="all zero", call=call)
    want_pinned = bool(spec["pin_memory"]) and target.pin_memory_available()
    # A zero-byte tensor has no allocation, so torch reports it unpinned whatever was asked.
    if torch.cuda.is_available() and buf.cpu.numel() and buf.cpu.is_pinned() != want_pinned:
        fail("buffer", ".cpu pinned-ness", got=buf.cpu.is_pinned(), expected=want_pinned, call=call)
    if spec["with_numpy"]:
        arr = buf.np
        if not isinstance(arr, np.ndarray) or arr.shape != size:
            fail("buffer", ".np shape", got=getattr(arr, "shape", type(arr)), expected=size, call=call)
        if buf.cpu.numel():
            before = buf.cpu.clone()
            flat = arr.reshape(-1)
            flat[-1] = flat[-1] + 1 if arr.dtype != np.bool_ else not flat[-1]
            if torch.equal(buf.cpu, before):
                fail("buffer", "a write through .np is not visible in .cpu", got="no change", expected=".np aliases .cpu", call=call)
            buf.cpu.copy_(before)
    return buf


#: The arguments of ``CpuGpuBuffer(*size, dtype, device, pin_memory, with_numpy)``: a refusal's
#: message names at least one (whole word); ``copy_to_gpu(n)``/``copy_to_cpu(n)`` refusals name ``n``.
BUFFER_ARGUMENT_NAMES = ("size", "dtype", "device", "pin_memory", "with_numpy")


def _names_one(exc: BaseException, names: tuple[str, ...]) -> bool:
    return any(re.search(rf"\b{name}\b", str(exc)) for name in names)


def check_buffer_rejected(target: Target, args: tuple[Any, ...], kwargs: dict[str, Any], raises: type[BaseException], why: str) -> None:
    """buffer: invalid constructor arguments raise ``raises`` (``TypeError`` or ``ValueError``, never an assert) naming the argument.

    ``args``/``kwargs`` are passed to ``target.buffer_cls`` as given; ``why`` names the row
    (it goes into the ``got`` part of a failure, so rows failing the same way are one kind).
    """
    target.require("buffer", "buffer")
    call = "CpuGpuBuffer(" + ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())]) + ")"
    try:
        target.buffer_cls(*args, **kwargs)
    except raises as exc:
        if not _names_one(exc, BUFFER_ARGUMENT_NAMES):
            # the brief: bad input gets "a clear exception naming the argument"
            fail("buffer", "a bad constructor argument: the message names no argument", got=f"{why}: {type(exc).__name__}: {str(exc)[:200]!r}", expected=f"a message naming the argument at fault ({', '.join(BUFFER_ARGUMENT_NAMES)})", call=call)
        return
    except Exception as exc:  # noqa: BLE001
        hint = " (an assert: gone under python -O)" if isinstance(exc, AssertionError) else ""
        fail("buffer", f"a bad constructor argument: wrong exception type{hint}", got=f"{type(exc).__name__} ({why}): {str(exc)[:200]}", expected=raises.__name__, call=call)
    fail("buffer", "a bad constructor argument: no exception", got=f"a buffer ({why})", expected=raises.__name__, call=call)


def check_numpy_view_rejected(target: Target, spec: dict[str, Any], device: torch.device) -> None:
    """buffer: ``with_numpy=True`` for a dtype numpy lacks (bfloat16, float8) raises ``ValueError`` naming ``dtype`` or ``with_numpy``."""
    target.require("buffer", "buffer")
    call = repr_spec(spec, device)
    try:
        _construct(target, spec, device)
    except ValueError as exc:
        if not _names_one(exc, ("dtype", "with_numpy")):
            fail("buffer", "numpy view of a dtype numpy lacks: the message names no argument", got=f"ValueError: {str(exc)[:200]!r}", expected="a message naming dtype or with_numpy", call=call)
        return
    except Exception as exc:  # noqa: BLE001
        fail("buffer", "numpy view of a dtype numpy lacks: wrong exception type", got=f"{type(exc).__name__}: {exc}", expected="ValueError", call=call)
    fail("buffer", "numpy view of a dtype numpy lacks: no exception", got="a buffer", expected="ValueError", call=call)


def _check_returned_rows(view: Any, side: torch.Tensor, name: str, rows: int, values: torch.Tensor | None, call: str) -> None:
    """The value a copy returns: ``side[:rows]`` itself (a view of the destination's first rows, same device and
    storage), holding the copied rows."""
    __tracebackhide__ = True
    if not isinstance(view, torch.Tensor):
        fail("buffer", "return value", got=type(view).__name__, expected=f"{name}[:{rows}] (a tensor)", call=call)
    want_shape = (rows, *side.shape[1:])
    if tuple(view.shape) != want_shape or view.dtype != side.dtype:
        fail("buffer", "returned view shape/dtype", got=(tuple(view.shape), view.dtype), expected=(want_shape, side.dtype), call=call)
    if view.device != side.device:
        fail("buffer", f"returned tensor's device (should be {name}'s)", got=view.device, expected=side.device, call=call)
    same_memory = view.untyped_storage().data_ptr() == side.untyped_storage().data_ptr() and (not view.numel() or (view.data_ptr() == side.data_ptr() and view.stride() == side.stride()))
    if not same_memory:
        fail("buffer", f"returned tensor is not a view of {name}'s first rows (a copy, or the other side's rows)", got=f"storage at {view.untyped_storage().data_ptr():#x}", expected=f"{name}'s storage at {side.untyped_storage().data_ptr():#x}", call=call)
    if values is not None and rows and not np.array_equal(_bytes(view), _bytes(values)[:rows]):
        fail("buffer", f"values of the returned {name}[:{rows}]", got=_bytes(view)[:2].tolist(), expected=_bytes(values)[:2].tolist(), call=call)


def check_copy_to_gpu(target: Target, buf: Any, n: int | None, values: torch.Tensor, call: str) -> None:
    """buffer: ``copy_to_gpu(n)`` copies exactly rows ``[0, n)``, returns the ``n``-row view of ``.gpu``, leaves the rest."""
    synchronize()
    buf.cpu.copy_(values)
    poison = torch.full_like(buf.gpu.view(torch.uint8), 0x7B).view(buf.gpu.dtype) if buf.gpu.numel() else buf.gpu
    buf.gpu.copy_(poison)
    before_gpu = _bytes(buf.gpu)
    rows = buf.gpu.shape[0] if n is None else n
    view = buf.copy_to_gpu(n)
    wait(buf)
    synchronize()
    call = f"{call}.copy_to_gpu({n})"
    _check_returned_rows(view, buf.gpu, ".gpu", rows, values, call)
    got, want_cpu = _bytes(buf.gpu), _bytes(values)
    if not np.array_equal(got[:rows], want_cpu[:rows]):
        bad = int(np.nonzero((got[:rows] != want_cpu[:rows]).any(axis=1))[0][0])
        fail("buffer", f"row {bad} of .gpu after copy_to_gpu({n})", got=got[bad].tolist(), expected=want_cpu[bad].tolist(), call=call)
    if not np.array_equal(got[rows:], before_gpu[rows:]):
        bad = rows + int(np.nonzero((got[rows:] != before_gpu[rows:]).any(axis=1))[0][0])
        fail("buffer", f"row {bad} (>= n) of .gpu was written", got=got[bad].tolist(), expected=before_gpu[bad].tolist(), call=call)


def check_copy_to_cpu(target: Target, buf: Any, n: int | None, values: torch.Tensor, call: str) -> None:
    """buffer: ``copy_to_cpu(n)`` mirrors copy_to_gpu: after the documented wait rows ``[0, n)`` are right, the rest untouched."""
    synchronize()
    buf.gpu.copy_(values.to(buf.gpu.device))
    if buf.cpu.numel():
        buf.cpu.view(torch.uint8).fill_(0x7B)
    before_cpu = _bytes(buf.cpu)
    rows = buf.cpu.shape[0] if n is None else n
    view = buf.copy_to_cpu(n)
    wait(buf)  # the documented wait, before any read of .cpu
    call = f"{call}.copy_to_cpu({n})"
    _check_returned_rows(view, buf.cpu, ".cpu", rows, values, call)
    got, want = _bytes(buf.cpu), _bytes(values)
    if not np.array_equal(got[:rows], want[:rows]):
        bad = int(np.nonzero((got[:rows] != want[:rows]).any(axis=1))[0][0])
        fail("buffer", f"row {bad} of .cpu after copy_to_cpu({n}) and the documented wait", got=got[bad].tolist(), expected=want[bad].tolist(), call=call)
    if not np.array_equal(got[rows:], before_cpu[rows:]):
        bad = rows + int(np.nonzero((got[rows:] != before_cpu[rows:]).any(axis=1))[0][0])
        fail("buffer", f"row {bad} (>= n) of .cpu was written", got=got[bad].tolist(), expected=before_cpu[bad].tolist(), call=call)


def check_row_count_rejected(target: Target, buf: Any, n: Any, method: str, call: str) -> None:
    """buffer: ``n`` outside ``[0, capacity]`` raises ``IndexError`` (a non-int ``n``: ``TypeError``) naming ``n``; nothing copied."""
    raises = errors.ROW_COUNT_TYPE if isinstance(n, bool) or not isinstance(n, int) else errors.ROW_COUNT_RANGE
    synchronize()
    if buf.cpu.numel():
        buf.cpu.view(torch.uint8).fill_(0x11)
    before = (_bytes(buf.cpu), _bytes(buf.gpu))
    call = f"{call}.{method}({n!r})"
    try:
        getattr(buf, method)(n)
    except raises as exc:
        if not _names_one(exc, ("n",)):
            fail("buffer", f"n={n!r} with capacity {buf.cpu.shape[0]}: the message names no argument", got=f"{type(exc).__name__}: {str(exc)[:200]!r}", expected="a message naming n", call=call)
    except Exception as exc:  # noqa: BLE001
        hint = " (an assert: gone under python -O)" if isinstance(exc, AssertionError) else ""
        fail("buffer", f"n={n!r} with capacity {buf.cpu.shape[0]}: wrong exception type{hint}", got=f"{type(exc).__name__}: {exc}", expected=raises.__name__, call=call)
    else:
        fail("buffer", f"n={n!r} with capacity {buf.cpu.shape[0]} accepted (Python slicing clamps it silently)", got="no exception", expected=raises.__name__, call=call)
    synchronize()
    after = (_bytes(buf.cpu), _bytes(buf.gpu))
    if not (np.array_equal(before[0], after[0]) and np.array_equal(before[1], after[1])):
        fail("buffer", "a rejected copy still wrote rows", got="buffers changed", expected="untouched", call=call)


def check_roundtrip_bits(target: Target, spec: dict[str, Any], device: torch.device, values: torch.Tensor) -> None:
    """buffer: without ``.np`` any dtype (bfloat16, float8) makes a bit-exact cpu -> gpu -> cpu round trip."""
    buf = make_buffer(target, spec, device)
    call = repr_spec(spec, device)
    buf.cpu.copy_(values)
    buf.copy_to_gpu()
    wait(buf)
    buf.cpu.zero_()
    buf.copy_to_cpu()
    wait(buf)
    if not np.array_equal(_bytes(buf.cpu), _bytes(values)):
        fail("buffer", "round trip .cpu -> .gpu -> .cpu changed bits", got=_bytes(buf.cpu).tolist()[:4], expected=_bytes(values).tolist()[:4], call=call)


def buffer_state_machine(target: Target, device: torch.device, specs: st.SearchStrategy[dict[str, Any]], values_for: Any) -> type[RuleBasedStateMachine]:
    """A Hypothesis state machine checking ``target.buffer_cls`` on ``device`` against a numpy model.

    - specs: strategy of buffer keyword dicts (see ``strategies.buffer_specs``).
    - values_for: ``values_for(dtype, shape)`` -> strategy of CPU tensors.

    Rules: write random rows into ``.cpu`` (through ``.np`` when present); write random
    rows into ``.gpu``; ``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` with ``n`` drawn in and
    out of range. Invariant (after the documented wait): both sides equal the model.
    """
    target.require("buffer", "buffer")

    class BufferMachine(RuleBasedStateMachine):
        buf: Any = None

        @initialize(spec=specs)
        def create(self, spec: dict[str, Any]) -> None:
            self.spec = spec
            self.buf = make_buffer(target, spec, device)
            self.rows = spec["size"][0]
            self.cpu_model = _bytes(self.buf.cpu) * 0
            self.gpu_model = self.cpu_model.copy()
            self.call = repr_spec(spec, device)

        def _row_values(self, data: st.DataObject, lo: int, hi: int) -> torch.Tensor:
            return data.draw(values_for(self.spec["dtype"], (hi - lo, *self.spec["size"][1:])), label="row values")

        @precondition(lambda self: self.buf is not None and self.rows > 0)
        @rule(data=st.data())
        def write_cpu(self, data: st.DataObject) -> None:
            lo = data.draw(st.integers(0, self.rows - 1), label="first row")
            hi = data.draw(st.integers(lo + 1, self.rows), label="end row")
            vals = self._row_values(data, lo, hi)
            wait(self.buf)  # never write .cpu while a copy from it may be queued (the documented hazard)
            if self.spec["with_numpy"]:
                self.buf.np[lo:hi] = vals.numpy()
            else:
                self.buf.cpu[lo:hi] = vals
            self.cpu_model[lo:hi] = _bytes(vals)

        @precondition(lambda self: self.buf is not None and self.rows > 0)
        @rule(data=st.data())
        def write_gpu(self, data: st.DataObject) -> None:
            lo = data.draw(st.integers(0, self.rows - 1), label="first row")
            hi = data.draw(st.integers(lo + 1, self.rows), label="end row")
            vals = self._row_values(data, lo, hi)
            self.buf.gpu[lo:hi] = vals.to(device)
            self.gpu_model[lo:hi] = _bytes(vals)

        def _copy(self, method: str, n: Any) -> None:
            valid = n is None or (isinstance(n, int) and 0 <= n <= self.rows)
            if not valid:
                try:
                    getattr(self.buf, method)(n)
                except errors.ROW_COUNT_RANGE:
                    return
                except Exception as exc:  # noqa: BLE001
                    fail("buffer", f"{method}({n}) with capacity {self.rows}: wrong exception type", got=f"{type(exc).__name__}: {exc}", expected="IndexError", call=self.call)
                fail("buffer", f"{method}({n}) with capacity {self.rows} accepted", got="no exception", expected="IndexError", call=self.call)
            returned = getattr(self.buf, method)(n)
            rows = self.rows if n is None else n
            side = self.buf.gpu if method == "copy_to_gpu" else self.buf.cpu
            _check_returned_rows(returned, side, ".gpu" if method == "copy_to_gpu" else ".cpu", rows, None, f"{self.call}.{method}({n})")
            if method == "copy_to_gpu":
                self.gpu_model[:rows] = self.cpu_model[:rows]
            else:
                self.cpu_model[:rows] = self.gpu_model[:rows]

        @precondition(lambda self: self.buf is not None)
        @rule(data=st.data())
        def copy_to_gpu(self, data: st.DataObject) -> None:
            n = data.draw(st.none() | st.integers(-3, self.rows + 4), label="n")
            self._copy("copy_to_gpu", n)

        @precondition(lambda self: self.buf is not None)
        @rule(data=st.data())
        def copy_to_cpu(self, data: st.DataObject) -> None:
            n = data.draw(st.none() | st.integers(-3, self.rows + 4), label="n")
            self._copy("copy_to_cpu", n)

        @invariant()
        def matches_model(self) -> None:
            if self.buf is None:
                return
            wait(self.buf)
            synchronize()
            for side, t, model in (("cpu", self.buf.cpu, self.cpu_model), ("gpu", self.buf.gpu, self.gpu_model)):
                got = _bytes(t)
                if not np.array_equal(got, model):
                    bad = int(np.nonzero((got != model).any(axis=1))[0][0])
                    fail("buffer", f"state machine: row {bad} of .{side} differs from the numpy model", got=got[bad].tolist(), expected=model[bad].tolist(), call=self.call)
            if self.spec["with_numpy"] and self.buf.cpu.numel() and not np.shares_memory(self.buf.np, self.buf.cpu.numpy()):
                fail("buffer", "state machine: .np no longer aliases .cpu", got="separate memory", expected="shared", call=self.call)

    BufferMachine.__name__ = f"BufferMachine[{target.name}, {device}]"
    return BufferMachine

