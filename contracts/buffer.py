"""Contract ``buffer``: ``CpuGpuBuffer``'s construction, views and row copies, checked on their own and as op sequences.

``CpuGpuBuffer(*size, dtype, device, pin_memory, with_numpy=True)``: zero-initialised,
``.cpu`` pinned iff asked and available (``pin_memory=True`` on a host without pinned
memory gives pageable memory, no error), ``.np`` a view of ``.cpu``, bfloat16/float8 with
``.np`` refused, ``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` copying exactly rows ``[0, n)``
and returning that view of the destination, ``n`` outside ``[0, capacity]`` refused.

Every check builds its buffer from a spec (the constructor's keyword arguments, as
:func:`strategies.buffer_specs` draws them), so a failure's reproduction rebuilds it. On
the host a buffer may keep one memory for both sides (``.gpu`` is ``.cpu`` when the device
is the host: vLLM 0.10); such a buffer is judged on what the host can see (the rows a copy
returns), not on a separation of sides that does not exist there.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import torch
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import h2d_contracts.strategies as hs
from h2d_contracts.harness import contexts
from h2d_contracts.harness.calling import synchronize
from h2d_contracts.harness.checks import check, reproduce
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import SUPPRESS, Rows, nondeterministic, require_device, run_given
from h2d_contracts.harness.target import Target, torch_pin_memory_available
from h2d_contracts.harness.violations import ContractViolation, NotApplicable, fail
from h2d_contracts.strategies import errors
from h2d_contracts.strategies.describe import literal

__all__ = [
    "BUFFER_ARGUMENT_NAMES",
    "buffer_state_machine",
    "check_buffer_constructed",
    "check_buffer_init",
    "check_buffer_ops",
    "check_buffer_rejected",
    "check_copy_to_cpu",
    "check_copy_to_gpu",
    "check_numpy_view_rejected",
    "check_roundtrip_bits",
    "check_row_count_rejected",
    "make_buffer",
    "repr_spec",
    "wait",
]


def _construct(target: Target, spec: dict[str, Any], device: torch.device) -> Any:
    target.require("buffer", "buffer")
    return target.buffer_cls(
        *spec["size"],
        dtype=spec["dtype"],
        device=device,
        pin_memory=spec["pin_memory"],
        with_numpy=spec["with_numpy"],
    )  # type: ignore[misc]


def make_buffer(target: Target, spec: dict[str, Any], device: torch.device) -> Any:
    """Build ``target.buffer_cls(*spec['size'], dtype=..., device=..., pin_memory=..., with_numpy=...)`` for a valid spec.

    ``pin_memory`` is always passed (vLLM 0.10-0.21 have no default for it). A valid spec
    that raises is a ``buffer`` violation (e.g. ``pin_memory=True`` on a host without pinned
    memory, where the documented behaviour is a pageable ``.cpu``).
    """
    __tracebackhide__ = True
    try:
        return _construct(target, spec, device)
    except NotApplicable:
        raise
    except Exception as exc:  # noqa: BLE001 - report what a valid construction raised
        pinned = (
            ""
            if target.pin_memory_available()
            else " (pinned memory is unavailable here: pin_memory=True must fall back to pageable)"
        )
        fail(
            "buffer",
            f"a valid CpuGpuBuffer construction raised{pinned if spec['pin_memory'] else ''}",
            got=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
            expected="a buffer",
            call=repr_spec(spec, device, target.buffer_name),
        )


def wait(buffer: Any) -> None:
    """The documented wait before reading copied values: synchronize the current stream of ``.gpu``'s device."""
    if buffer.gpu.device.type == "cuda":
        torch.cuda.current_stream(buffer.gpu.device).synchronize()


def repr_spec(spec: dict[str, Any], device: torch.device, name: str = "CpuGpuBuffer") -> str:
    """``CpuGpuBuffer(...)`` (``name``: the target's class name) with every constructor argument of ``spec`` (as
    :func:`strategies.buffer_specs` gives), runnable."""
    size = ", ".join(map(str, spec["size"]))
    return f"{name}({size}, dtype={spec['dtype']}, device=torch.device('{device}'), pin_memory={spec['pin_memory']}, with_numpy={spec.get('with_numpy', True)})"


def _bytes(t: torch.Tensor) -> np.ndarray:
    """Raw bytes of a tensor's elements, shape ``(rows, row_bytes)`` (any device)."""
    host = t.detach().cpu().contiguous()
    rows = host.shape[0] if host.dim() else 1
    # .copy(): a snapshot, not a view of live host memory (a view would compare rows with themselves).
    return host.view(torch.uint8).reshape(rows, -1).numpy().copy() if host.numel() else np.zeros((rows, 0), np.uint8)


def host_aliased(buf: Any) -> bool:
    """Whether ``buf.gpu`` is on the host and shares memory with ``buf.cpu`` (one memory for both sides)."""
    cpu, gpu = buf.cpu, buf.gpu
    if gpu.device.type != "cpu" or not cpu.numel():
        return False
    return bool(cpu.untyped_storage().data_ptr() == gpu.untyped_storage().data_ptr())


def _dirty_freed_memory(spec: dict[str, Any], device: torch.device) -> None:
    """Fill and free blocks of the buffer's sizes first, so an allocation the target does not zero hands back non-zero bytes.

    Allocators reuse what was just freed (glibc for pageable memory, torch's caching host and
    device allocators): a buffer made with ``torch.empty`` then holds these bytes, in a long
    test process and in a fresh one alike (a reproduction runs in a fresh one).
    """
    nbytes = math.prod(spec["size"]) * spec["dtype"].itemsize
    if not nbytes:
        return
    pinned = bool(spec["pin_memory"]) and torch_pin_memory_available()
    blocks = [torch.empty(nbytes, dtype=torch.uint8, pin_memory=pinned)]
    if device.type != "cpu":
        blocks.append(torch.empty(nbytes, dtype=torch.uint8, device=device))
    for block in blocks:
        block.fill_(0xA5)
    synchronize()
    del blocks


@check("buffer")
def check_buffer_init(target: Target, spec: dict[str, Any], device: torch.device) -> Any:
    """buffer: shapes, dtypes, devices, zero-initialised (after dirty memory was freed), pinned iff asked and available, ``.np`` aliases ``.cpu``."""
    _dirty_freed_memory(spec, device)
    return _judge_built(
        target, make_buffer(target, spec, device), spec, device, repr_spec(spec, device, target.buffer_name)
    )


@check("buffer")
def check_buffer_constructed(target: Target, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """buffer: ``CpuGpuBuffer(*args, **kwargs)`` as a user writes it (``with_numpy`` left to its documented default, sizes as
    numpy integers...) is what :func:`check_buffer_init` asks of a buffer of the same spec.

    ``kwargs`` must hold ``dtype``, ``device`` and ``pin_memory`` (a spec names
    ``pin_memory`` explicitly: vLLM <= 0.21 requires it).
    """
    device = torch.device(kwargs["device"])
    spec = {
        "size": tuple(int(a) for a in args),
        "dtype": kwargs["dtype"],
        "pin_memory": kwargs["pin_memory"],
        "with_numpy": kwargs.get("with_numpy", True),
    }
    call = (
        f"{target.buffer_name}("
        + ", ".join([*map(literal, args), *(f"{k}={literal(v)}" for k, v in kwargs.items())])
        + ")"
    )
    try:
        with contexts.entered():
            buf = target.buffer_cls(*args, **kwargs)  # type: ignore[misc]
    except Exception as exc:  # noqa: BLE001 - a valid construction must not raise
        fail(
            "buffer",
            "a valid CpuGpuBuffer construction raised",
            got=f"{type(exc).__name__}: {str(exc)[:200]}",
            expected="a buffer",
            call=call,
        )
    return _judge_built(target, buf, spec, device, call)


def _judge_built(target: Target, buf: Any, spec: dict[str, Any], device: torch.device, call: str) -> Any:
    size = tuple(spec["size"])
    for name, t, dev in (("cpu", buf.cpu, torch.device("cpu")), ("gpu", buf.gpu, device)):
        if tuple(t.shape) != size or t.dtype != spec["dtype"]:
            fail(
                "buffer",
                f".{name} shape/dtype",
                got=(tuple(t.shape), t.dtype),
                expected=(size, spec["dtype"]),
                call=call,
            )
        if t.device.type != dev.type or (dev.type == "cuda" and t.device.index != dev.index):
            fail("buffer", f".{name} device", got=t.device, expected=dev, call=call)
    synchronize()
    for name, t in (("cpu", buf.cpu), ("gpu", buf.gpu)):
        if t.numel() and _bytes(t).any():
            fail(
                "buffer",
                f".{name} is not zero-initialised",
                got=f"{int((_bytes(t) != 0).sum())} non-zero bytes",
                expected="all zero",
                call=call,
            )
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
                fail(
                    "buffer",
                    "a write through .np is not visible in .cpu",
                    got="no change",
                    expected=".np aliases .cpu",
                    call=call,
                )
            buf.cpu.copy_(before)
    return buf


#: The arguments of ``CpuGpuBuffer(*size, dtype, device, pin_memory, with_numpy)``: a refusal's
#: message names at least one (whole word); ``copy_to_gpu(n)``/``copy_to_cpu(n)`` refusals name ``n``.
BUFFER_ARGUMENT_NAMES = ("size", "dtype", "device", "pin_memory", "with_numpy")


def _names_one(exc: BaseException, names: tuple[str, ...]) -> bool:
    return any(re.search(rf"\b{name}\b", str(exc)) for name in names)


@check("buffer")
def check_buffer_rejected(
    target: Target, args: tuple[Any, ...], kwargs: dict[str, Any], raises: type[BaseException], why: str
) -> None:
    """buffer: invalid constructor arguments raise ``raises`` (``TypeError`` or ``ValueError``, never an assert) naming the argument.

    ``args``/``kwargs`` are passed to ``target.buffer_cls`` as given; ``why`` names the row
    (it goes into the ``got`` part of a failure, so rows failing the same way are one kind).
    """
    target.require("buffer", "buffer")
    call = (
        f"{target.buffer_name}("
        + ", ".join([*map(literal, args), *(f"{k}={literal(v)}" for k, v in kwargs.items())])
        + ")"
    )
    try:
        with contexts.entered():
            target.buffer_cls(*args, **kwargs)  # type: ignore[misc]
    except raises as exc:
        if not _names_one(exc, BUFFER_ARGUMENT_NAMES):
            # the brief: bad input gets "a clear exception naming the argument"
            fail(
                "buffer",
                "a bad constructor argument: the message names no argument",
                got=f"{why}: {type(exc).__name__}: {str(exc)[:200]!r}",
                expected=f"a message naming the argument at fault ({', '.join(BUFFER_ARGUMENT_NAMES)})",
                call=call,
            )
        return
    except Exception as exc:  # noqa: BLE001
        hint = " (an assert: gone under python -O)" if isinstance(exc, AssertionError) else ""
        fail(
            "buffer",
            f"a bad constructor argument: wrong exception type{hint}",
            got=f"{type(exc).__name__} ({why}): {str(exc)[:200]}",
            expected=raises.__name__,
            call=call,
        )
    fail(
        "buffer",
        "a bad constructor argument: no exception",
        got=f"a buffer ({why})",
        expected=raises.__name__,
        call=call,
    )


@check("buffer")
def check_numpy_view_rejected(target: Target, spec: dict[str, Any], device: torch.device) -> None:
    """buffer: ``with_numpy=True`` for a dtype numpy lacks (bfloat16, float8) raises ``ValueError`` naming ``dtype`` or ``with_numpy``."""
    target.require("buffer", "buffer")
    call = repr_spec(spec, device, target.buffer_name)
    try:
        _construct(target, spec, device)
    except ValueError as exc:
        if not _names_one(exc, ("dtype", "with_numpy")):
            fail(
                "buffer",
                "numpy view of a dtype numpy lacks: the message names no argument",
                got=f"ValueError: {str(exc)[:200]!r}",
                expected="a message naming dtype or with_numpy",
                call=call,
            )
        return
    except Exception as exc:  # noqa: BLE001
        fail(
            "buffer",
            "numpy view of a dtype numpy lacks: wrong exception type",
            got=f"{type(exc).__name__}: {exc}",
            expected="ValueError",
            call=call,
        )
    fail("buffer", "numpy view of a dtype numpy lacks: no exception", got="a buffer", expected="ValueError", call=call)


def _check_returned_rows(
    view: Any, side: torch.Tensor, name: str, rows: int, values: torch.Tensor | None, call: str
) -> None:
    """The value a copy returns: ``side[:rows]`` itself (a view of the destination's first rows, same device and
    storage), holding the copied rows."""
    __tracebackhide__ = True
    if not isinstance(view, torch.Tensor):
        fail("buffer", "return value", got=type(view).__name__, expected=f"{name}[:{rows}] (a tensor)", call=call)
    want_shape = (rows, *side.shape[1:])
    if tuple(view.shape) != want_shape or view.dtype != side.dtype:
        fail(
            "buffer",
            "returned view shape/dtype",
            got=(tuple(view.shape), view.dtype),
            expected=(want_shape, side.dtype),
            call=call,
        )
    if view.device != side.device:
        fail(
            "buffer", f"returned tensor's device (should be {name}'s)", got=view.device, expected=side.device, call=call
        )
    same_memory = view.untyped_storage().data_ptr() == side.untyped_storage().data_ptr() and (
        not view.numel() or (view.data_ptr() == side.data_ptr() and view.stride() == side.stride())
    )
    if not same_memory:
        fail(
            "buffer",
            f"returned tensor is not a view of {name}'s first rows (a copy, or the other side's rows)",
            got=f"storage at {view.untyped_storage().data_ptr():#x}",
            expected=f"{name}'s storage at {side.untyped_storage().data_ptr():#x}",
            call=call,
        )
    if values is not None and rows and not np.array_equal(_bytes(view), _bytes(values)[:rows]):
        fail(
            "buffer",
            f"values of the returned {name}[:{rows}]",
            got=_bytes(view)[:2].tolist(),
            expected=_bytes(values)[:2].tolist(),
            call=call,
        )


def _row_count(n: Any, capacity: int) -> int:
    return capacity if n is None else int(n)


@check("buffer")
def check_copy_to_gpu(
    target: Target, spec: dict[str, Any], device: torch.device, n: int | np.integer[Any] | None, values: torch.Tensor
) -> None:
    """buffer: on a fresh buffer of ``spec``, ``copy_to_gpu(n)`` copies exactly rows ``[0, n)`` of ``values`` (written to ``.cpu``),
    returns the ``n``-row view of ``.gpu`` and leaves its other rows as they were."""
    buf = make_buffer(target, spec, device)
    call = f"{repr_spec(spec, device, target.buffer_name)}.copy_to_gpu({n})"
    aliased = host_aliased(buf)
    synchronize()
    if not aliased and buf.gpu.numel():
        buf.gpu.view(torch.uint8).fill_(0x7B)
    buf.cpu.copy_(values)
    before_gpu = _bytes(buf.gpu)
    rows = _row_count(n, buf.gpu.shape[0])
    with contexts.entered():
        view = buf.copy_to_gpu(n)
    wait(buf)
    synchronize()
    _check_returned_rows(view, buf.gpu, ".gpu", rows, values, call)
    if aliased:
        return  # one memory: rows past n hold .cpu's values by construction
    got, want = _bytes(buf.gpu), _bytes(values)
    if not np.array_equal(got[:rows], want[:rows]):
        bad = int(np.nonzero((got[:rows] != want[:rows]).any(axis=1))[0][0])
        fail(
            "buffer",
            f"row {bad} of .gpu after copy_to_gpu({n})",
            got=got[bad].tolist(),
            expected=want[bad].tolist(),
            call=call,
        )
    if not np.array_equal(got[rows:], before_gpu[rows:]):
        bad = rows + int(np.nonzero((got[rows:] != before_gpu[rows:]).any(axis=1))[0][0])
        fail(
            "buffer",
            f"row {bad} (>= n) of .gpu was written",
            got=got[bad].tolist(),
            expected=before_gpu[bad].tolist(),
            call=call,
        )


@check("buffer")
def check_copy_to_cpu(
    target: Target, spec: dict[str, Any], device: torch.device, n: int | np.integer[Any] | None, values: torch.Tensor
) -> None:
    """buffer: on a fresh buffer of ``spec``, ``copy_to_cpu(n)`` mirrors copy_to_gpu: after the documented wait rows ``[0, n)``
    of ``.cpu`` hold ``values`` (written to ``.gpu``), the rest untouched, and the ``n``-row view of ``.cpu`` is returned."""
    buf = make_buffer(target, spec, device)
    call = f"{repr_spec(spec, device, target.buffer_name)}.copy_to_cpu({n})"
    aliased = host_aliased(buf)
    synchronize()
    if not aliased and buf.cpu.numel():
        buf.cpu.view(torch.uint8).fill_(0x7B)
    buf.gpu.copy_(values.to(buf.gpu.device))
    before_cpu = _bytes(buf.cpu)
    rows = _row_count(n, buf.cpu.shape[0])
    with contexts.entered():
        view = buf.copy_to_cpu(n)
    wait(buf)  # the documented wait, before any read of .cpu
    _check_returned_rows(view, buf.cpu, ".cpu", rows, values, call)
    if aliased:
        return
    got, want = _bytes(buf.cpu), _bytes(values)
    if not np.array_equal(got[:rows], want[:rows]):
        bad = int(np.nonzero((got[:rows] != want[:rows]).any(axis=1))[0][0])
        fail(
            "buffer",
            f"row {bad} of .cpu after copy_to_cpu({n}) and the documented wait",
            got=got[bad].tolist(),
            expected=want[bad].tolist(),
            call=call,
        )
    if not np.array_equal(got[rows:], before_cpu[rows:]):
        bad = rows + int(np.nonzero((got[rows:] != before_cpu[rows:]).any(axis=1))[0][0])
        fail(
            "buffer",
            f"row {bad} (>= n) of .cpu was written",
            got=got[bad].tolist(),
            expected=before_cpu[bad].tolist(),
            call=call,
        )


@check("buffer")
def check_row_count_rejected(target: Target, spec: dict[str, Any], device: torch.device, n: Any, method: str) -> None:
    """buffer: ``n`` outside ``[0, capacity]`` raises ``IndexError`` (a non-int ``n``: ``TypeError``) naming ``n``; nothing copied."""
    buf = make_buffer(target, spec, device)
    raises = (
        errors.ROW_COUNT_TYPE
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or isinstance(n, np.bool_)
        else errors.ROW_COUNT_RANGE
    )
    synchronize()
    if buf.cpu.numel():
        buf.cpu.view(torch.uint8).fill_(0x11)
    before = (_bytes(buf.cpu), _bytes(buf.gpu))
    call = f"{repr_spec(spec, device, target.buffer_name)}.{method}({n!r})"
    try:
        getattr(buf, method)(n)
    except raises as exc:
        if not _names_one(exc, ("n",)):
            fail(
                "buffer",
                f"n={n!r} with capacity {buf.cpu.shape[0]}: the message names no argument",
                got=f"{type(exc).__name__}: {str(exc)[:200]!r}",
                expected="a message naming n",
                call=call,
            )
    except Exception as exc:  # noqa: BLE001
        hint = " (an assert: gone under python -O)" if isinstance(exc, AssertionError) else ""
        fail(
            "buffer",
            f"n={n!r} with capacity {buf.cpu.shape[0]}: wrong exception type{hint}",
            got=f"{type(exc).__name__}: {exc}",
            expected=raises.__name__,
            call=call,
        )
    else:
        fail(
            "buffer",
            f"n={n!r} with capacity {buf.cpu.shape[0]} accepted (Python slicing clamps it silently)",
            got="no exception",
            expected=raises.__name__,
            call=call,
        )
    synchronize()
    after = (_bytes(buf.cpu), _bytes(buf.gpu))
    if not (np.array_equal(before[0], after[0]) and np.array_equal(before[1], after[1])):
        fail("buffer", "a rejected copy still wrote rows", got="buffers changed", expected="untouched", call=call)


@check("buffer")
def check_roundtrip_bits(target: Target, spec: dict[str, Any], device: torch.device, values: torch.Tensor) -> None:
    """buffer: without ``.np`` any dtype (bfloat16, float8) makes a bit-exact cpu -> gpu -> cpu round trip."""
    buf = make_buffer(target, spec, device)
    call = repr_spec(spec, device, target.buffer_name)
    buf.cpu.copy_(values)
    buf.copy_to_gpu()
    wait(buf)
    if not host_aliased(buf):
        buf.cpu.zero_()
    buf.copy_to_cpu()
    wait(buf)
    if not np.array_equal(_bytes(buf.cpu), _bytes(values)):
        fail(
            "buffer",
            "round trip .cpu -> .gpu -> .cpu changed bits",
            got=_bytes(buf.cpu).tolist()[:4],
            expected=_bytes(values).tolist()[:4],
            call=call,
        )


# --------------------------------------------------------------------------- op sequences


class _Model:
    """A buffer under a sequence of ops, beside a numpy model of both sides (raw bytes: bfloat16 and float8 bit for bit)."""

    def __init__(self, target: Target, spec: dict[str, Any], device: torch.device) -> None:
        self.spec, self.device = spec, device
        self.buf = make_buffer(target, spec, device)
        self.rows = spec["size"][0]
        self.aliased = host_aliased(self.buf)
        self.cpu_model = _bytes(self.buf.cpu) * 0
        self.gpu_model = self.cpu_model if self.aliased else self.cpu_model.copy()
        self.call = repr_spec(spec, device, target.buffer_name)

    def apply(self, op: tuple[Any, ...]) -> None:
        """Run one op on the buffer and the model; raise a violation where the buffer disagrees (after the documented wait)."""
        kind = op[0]
        if kind in ("write_cpu", "write_gpu"):
            _, lo, hi, vals = op
            if kind == "write_cpu":
                wait(self.buf)  # never write .cpu while a copy from it may be queued (the documented hazard)
                if self.spec["with_numpy"]:
                    self.buf.np[lo:hi] = vals.numpy()
                else:
                    self.buf.cpu[lo:hi] = vals
                self.cpu_model[lo:hi] = _bytes(vals)
            else:
                self.buf.gpu[lo:hi] = vals.to(self.device)
                self.gpu_model[lo:hi] = _bytes(vals)
        else:
            self._copy(kind, op[1])
        self.verify()

    def _copy(self, method: str, n: Any) -> None:
        valid = n is None or (isinstance(n, int) and 0 <= n <= self.rows)
        if not valid:
            try:
                getattr(self.buf, method)(n)
            except errors.ROW_COUNT_RANGE:
                return
            except Exception as exc:  # noqa: BLE001
                fail(
                    "buffer",
                    f"{method}({n}) with capacity {self.rows}: wrong exception type",
                    got=f"{type(exc).__name__}: {exc}",
                    expected="IndexError",
                    call=self.call,
                )
            fail(
                "buffer",
                f"{method}({n}) with capacity {self.rows} accepted",
                got="no exception",
                expected="IndexError",
                call=self.call,
            )
        returned = getattr(self.buf, method)(n)
        rows = self.rows if n is None else n
        side = self.buf.gpu if method == "copy_to_gpu" else self.buf.cpu
        _check_returned_rows(
            returned, side, ".gpu" if method == "copy_to_gpu" else ".cpu", rows, None, f"{self.call}.{method}({n})"
        )
        if self.aliased:
            return
        if method == "copy_to_gpu":
            self.gpu_model[:rows] = self.cpu_model[:rows]
        else:
            self.cpu_model[:rows] = self.gpu_model[:rows]

    def verify(self) -> None:
        wait(self.buf)
        synchronize()
        for side, t, model in (("cpu", self.buf.cpu, self.cpu_model), ("gpu", self.buf.gpu, self.gpu_model)):
            got = _bytes(t)
            if not np.array_equal(got, model):
                bad = int(np.nonzero((got != model).any(axis=1))[0][0])
                fail(
                    "buffer",
                    f"op sequence: row {bad} of .{side} differs from the numpy model",
                    got=got[bad].tolist(),
                    expected=model[bad].tolist(),
                    call=self.call,
                )
        if self.spec["with_numpy"] and self.buf.cpu.numel() and not np.shares_memory(self.buf.np, self.buf.cpu.numpy()):
            fail(
                "buffer",
                "op sequence: .np no longer aliases .cpu",
                got="separate memory",
                expected="shared",
                call=self.call,
            )


@check("buffer")
def check_buffer_ops(target: Target, spec: dict[str, Any], device: torch.device, ops: list[tuple[Any, ...]]) -> None:
    """buffer: a sequence of ops on one buffer agrees with a numpy model after every op.

    ``ops``: ``("write_cpu", lo, hi, values)`` (through ``.np`` when the buffer has it),
    ``("write_gpu", lo, hi, values)``, ``("copy_to_gpu", n)``, ``("copy_to_cpu", n)`` (``n``
    None, in range or out of it: out of range must raise ``IndexError`` and copy nothing).
    What :func:`buffer_state_machine` runs, as one replayable call.
    """
    model = _Model(target, spec, device)
    for op in ops:
        model.apply(op)


def buffer_state_machine(
    target: Target, device: torch.device, specs: st.SearchStrategy[dict[str, Any]], values_for: Any
) -> type[RuleBasedStateMachine]:
    """A Hypothesis state machine of ops on one ``target.buffer_cls`` on ``device``, against a numpy model.

    - specs: strategy of buffer keyword dicts (see ``strategies.buffer_specs``).
    - values_for: ``values_for(dtype, shape)`` -> strategy of CPU tensors.

    Rules: write random rows into ``.cpu`` (through ``.np`` when present); write random
    rows into ``.gpu``; ``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` with ``n`` drawn in and out
    of range. After every op both sides equal the model; a violation carries the
    reproduction of the whole sequence (:func:`check_buffer_ops`).
    """
    target.require("buffer", "buffer")

    class BufferMachine(RuleBasedStateMachine):
        model: Any = None
        ops: list[tuple[Any, ...]]

        @initialize(spec=specs)
        def create(self, spec: dict[str, Any]) -> None:
            self.spec, self.ops = spec, []
            self.model = _Model(target, spec, device)

        def _run(self, op: tuple[Any, ...]) -> None:
            self.ops.append(op)
            try:
                self.model.apply(op)
            except ContractViolation as exc:
                raise reproduce(exc, check_buffer_ops, target, self.spec, device, list(self.ops)) from None

        def _rows(self, data: st.DataObject) -> tuple[int, int, torch.Tensor]:
            lo = data.draw(st.integers(0, self.model.rows - 1), label="first row")
            hi = data.draw(st.integers(lo + 1, self.model.rows), label="end row")
            return (
                lo,
                hi,
                data.draw(values_for(self.spec["dtype"], (hi - lo, *self.spec["size"][1:])), label="row values"),
            )

        @precondition(lambda self: self.model is not None and self.model.rows > 0)
        @rule(data=st.data())
        def write_cpu(self, data: st.DataObject) -> None:
            self._run(("write_cpu", *self._rows(data)))

        @precondition(lambda self: self.model is not None and self.model.rows > 0)
        @rule(data=st.data())
        def write_gpu(self, data: st.DataObject) -> None:
            self._run(("write_gpu", *self._rows(data)))

        @precondition(lambda self: self.model is not None)
        @rule(data=st.data())
        def copy_to_gpu(self, data: st.DataObject) -> None:
            self._run(("copy_to_gpu", data.draw(st.none() | st.integers(-3, self.model.rows + 4), label="n")))

        @precondition(lambda self: self.model is not None)
        @rule(data=st.data())
        def copy_to_cpu(self, data: st.DataObject) -> None:
            self._run(("copy_to_cpu", data.draw(st.none() | st.integers(-3, self.model.rows + 4), label="n")))

        @invariant()
        def nothing_pending(self) -> None:
            if self.model is not None:
                wait(self.model.buf)

    BufferMachine.__name__ = f"BufferMachine[{target.name}, {device}]"
    return BufferMachine


# --------------------------------------------------------------------------- properties


def buffer_values(dtype: torch.dtype, shape: tuple[int, ...]) -> st.SearchStrategy[torch.Tensor]:
    """Values for a buffer's rows: a contiguous CPU tensor of ``dtype`` and ``shape`` (any bit pattern of floats)."""
    return hs.tensor_values(dtype, tuple(shape), None)


@prop("buffer")
def prop_buffer_init(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: zero-initialised, shapes/dtypes/devices, pinned iff asked, .np aliases .cpu."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")

    def body(data: st.DataObject) -> None:
        spec = data.draw(hs.buffer_specs(), label="buffer")
        check_buffer_init(target, spec, device)

    run_given(body, overrides, cap=30)


@prop("buffer")
def prop_buffer_numpy_rejected(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: with_numpy=True for bfloat16 / float8 raises ValueError."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")
    no_numpy = [torch.bfloat16, *hs.FLOAT8_DTYPES]

    def body(data: st.DataObject) -> None:
        spec = data.draw(hs.buffer_specs(), label="buffer")
        spec = {**spec, "dtype": data.draw(st.sampled_from(no_numpy), label="dtype"), "with_numpy": True}
        check_numpy_view_rejected(target, spec, device)

    run_given(body, overrides, cap=10)


@prop("buffer")
def prop_buffer_bad_args(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: bad constructor arguments are refused with TypeError/ValueError naming the argument (a table).

    Rows from the documented Raises of ``CpuGpuBuffer``: no size, a negative, fractional,
    bool or string size, a size too large to allocate, a missing or non-dtype ``dtype``, a
    missing or invalid ``device``, a non-bool ``pin_memory`` or ``with_numpy``. The brief:
    "bad input gets a clear exception naming the argument"; ``assert``-based checks
    (vLLM's style) vanish under ``python -O``.
    """
    target.require("buffer", "buffer")
    del overrides  # deterministic: every row every run
    ok: dict[str, Any] = {"dtype": torch.int32, "device": device, "pin_memory": False, "with_numpy": True}
    rows = Rows("buffer constructor table")
    table: list[tuple[str, tuple[Any, ...], dict[str, Any], type[BaseException]]] = [
        ("no size", (), ok, ValueError),
        ("negative size", (4, -1), ok, ValueError),
        ("fractional size", (2.5,), ok, TypeError),
        ("bool size", (True,), ok, TypeError),
        ("string size", ("4",), ok, TypeError),
        # sizes go in one by one (*size): a single tuple, list or torch.Size is a misuse, not a shape
        ("size a tuple", ((4,),), ok, TypeError),
        ("size a list", ([4, 2],), ok, TypeError),
        ("size a torch.Size", (torch.Size([4]),), ok, TypeError),
        ("size too large to allocate", (1 << 62,), ok, ValueError),
        ("dtype None", (4,), {**ok, "dtype": None}, TypeError),
        ("dtype a string", (4,), {**ok, "dtype": "int32"}, TypeError),
        ("device None", (4,), {**ok, "device": None}, TypeError),
        ("device an invalid string", (4,), {**ok, "device": "gpu:x"}, ValueError),
        ("pin_memory a string", (4,), {**ok, "pin_memory": "yes"}, TypeError),
        ("with_numpy a string", (4,), {**ok, "with_numpy": "no"}, TypeError),
    ]
    for why, args, kwargs, raises in table:
        rows.row(check_buffer_rejected, target, args, kwargs, raises, why)
    rows.finish()


@prop("buffer")
def prop_buffer_roundtrip(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: without .np, every dtype (bfloat16 and float8 included) round-trips bit for bit."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")

    def body(data: st.DataObject) -> None:
        spec = {**data.draw(hs.buffer_specs(), label="buffer"), "with_numpy": False}
        values = data.draw(buffer_values(spec["dtype"], spec["size"]), label="values")
        check_roundtrip_bits(target, spec, device, values)

    run_given(body, overrides, cap=30)


@prop("buffer")
def prop_buffer_copy(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: copy_to_gpu(n) / copy_to_cpu(n) copy exactly rows [0, n) and return the n-row view."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")

    def body(data: st.DataObject) -> None:
        max_rows = data.draw(st.sampled_from([8, 8, 8, 200]), label="max rows")  # capacities past 64 too
        spec = data.draw(hs.buffer_specs(max_rows=max_rows), label="buffer")
        n = data.draw(hs.row_counts(spec["size"][0], valid=True), label="n")
        values = data.draw(buffer_values(spec["dtype"], spec["size"]), label="values")
        method = data.draw(st.sampled_from(["copy_to_gpu", "copy_to_cpu"]), label="method")
        (check_copy_to_gpu if method == "copy_to_gpu" else check_copy_to_cpu)(target, spec, device, n, values)

    run_given(body, overrides)


@prop("buffer")
def prop_buffer_copy_sizes(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: capacities 1-4097 (past 64, 128, 1024 and 4096) with n in {0, 1, 300, capacity-1, capacity}, both directions (a table)."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")
    del overrides  # deterministic: every size every run
    rows = Rows("buffer copy sizes")
    for capacity in (1, 63, 64, 65, 132, 1000, 1025, 4097):
        # pinning asked for at odd capacities, whether or not this host has pinned memory (fallback: pageable)
        spec = {"size": (capacity, 3), "dtype": torch.int32, "pin_memory": capacity % 2 == 1, "with_numpy": True}
        values = torch.arange(capacity * 3, dtype=torch.int32).view(capacity, 3) + 1
        for n in sorted({0, 1, capacity - 1, capacity} | ({300} if capacity > 300 else set())):
            for copy in (check_copy_to_gpu, check_copy_to_cpu):
                rows.row(copy, target, spec, device, n, values)
    rows.finish()


@prop("buffer")
def prop_buffer_bad_rows(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: n outside [0, capacity] (negative, capacity+k) raises IndexError; a non-int n TypeError; nothing copied."""
    require_device(target, device, "buffer")
    target.require("buffer", "buffer")

    def body(data: st.DataObject) -> None:
        spec = data.draw(hs.buffer_specs(), label="buffer")
        # Not integer row counts, though operator.index or slicing may take some of them.
        not_ints = st.sampled_from(
            [1.0, True, np.bool_(True), "1", torch.tensor(True), torch.tensor([1]), torch.tensor(1.0)]
        )
        n = data.draw(hs.row_counts(spec["size"][0], valid=False) | not_ints, label="n")
        method = data.draw(st.sampled_from(["copy_to_gpu", "copy_to_cpu"]), label="method")
        check_row_count_rejected(target, spec, device, n, method)

    run_given(body, overrides)


@prop("buffer")
def prop_buffer_state_machine(target: Target, device: torch.device, **overrides: Any) -> None:
    """buffer: random op sequences on one buffer agree with a numpy model (a Hypothesis state machine)."""
    require_device(target, device, "buffer")
    machine = buffer_state_machine(target, device, hs.buffer_specs(max_rows=6), buffer_values)
    kw: dict[str, Any] = {"suppress_health_check": SUPPRESS, "deadline": None, "stateful_step_count": 12}
    kw["max_examples"] = min(settings().max_examples, 25)
    kw.update({k: v for k, v in overrides.items() if k != "max_kinds"})
    try:
        run_state_machine_as_test(machine, settings=settings(**kw))
    except Flaky as exc:
        raise nondeterministic(exc, "buffer", "prop_buffer_state_machine") from exc
