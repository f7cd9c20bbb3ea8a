"""Op sequences on one buffer against a numpy model of both sides (raw bytes): the replayable check
:func:`check_buffer_ops` and the Hypothesis state machine that draws the sequences."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from h2d_contracts.harness.calling import synchronize
from h2d_contracts.harness.checks import check, reproduce
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import ContractViolation, fail
from h2d_contracts.strategies import errors

from .build import _bytes, host_aliased, make_buffer, repr_spec, wait
from .copies import _check_returned_rows


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
            returned,
            side,
            ".gpu" if method == "copy_to_gpu" else ".cpu",
            rows,
            None,
            f"{self.call}.{method}({n})",
            whole=n is None,
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
