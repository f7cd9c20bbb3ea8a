"""Contracts of Model Runner V2's transfer utilities: ``uva``, ``pool``, ``staged-write``, ``fused-writes``.

The classes of vLLM 0.33.0's ``vllm/v1/worker/gpu/buffer_utils.py`` (a target's
``buffer_utils``, capability ``"buffer-utils"``), judged against a numpy model:

- ``staged-write``: a ``StagedWriteTensor`` after any schedule of ``stage_write`` /
  ``stage_write_elem`` / ``apply_write`` holds exactly what the model holds (writes applied
  in staging order, bit for bit, across vLLM's 1,024-element chunks); a write past the
  tensor's rows or a row's end (or a negative index or start) is refused with an
  exception naming the argument (never an ``assert``: ``python -O`` removes it) and
  nothing is staged; a dtype outside int32/int64/float32 is refused with ``ValueError``.
- ``fused-writes``: one ``FusedStagedWriter.apply`` leaves every tensor as its own
  ``apply_write`` would, and clears all their staged writes.
- ``pool``: a ``UvaBufferPool``'s reader sees its own step's data while at most
  ``max_concurrency`` steps are in flight (readers retired before a slot is reused, as
  vLLM asks of callers), growth included; ``x`` whose rows are not a slot's rows is refused.
- ``uva``: ``uva(n)`` is the first ``n`` rows of ``.cpu``, refused past the rows (IndexError
  naming ``n``); on CUDA a ``UvaBuffer``'s view is read when the kernel runs (a reader
  queued behind busy work sees what the host wrote after the call).

On the CPU the pool's slots are ``NonUvaBuffer``\\ s (no UVA) and a reader is a host read;
on CUDA readers are kernels queued behind calibrated busy work (``contracts.gpu.timing``).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

from h2d_contracts.harness.calling import synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.oracle import assert_same_values
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable, fail
from h2d_contracts.strategies.schedules import (
    STAGED_WRITE_DTYPES,
    pool_schedules,
    pool_specs,
    row_length,
    staged_tensor_specs,
    staging_schedules,
)

from .gpu.timing import busy

__all__ = [
    "UNSUPPORTED_STAGED_DTYPES",
    "check_fused_writes",
    "check_pool_steps",
    "check_staged_dtype_refused",
    "check_staged_writes",
    "check_uva_rows",
]

#: Dtypes a StagedWriteTensor must refuse with ValueError (vLLM 0.33.0 supports int32, int64, float32).
UNSUPPORTED_STAGED_DTYPES = (
    torch.float16,
    torch.bfloat16,
    torch.float64,
    torch.int8,
    torch.int16,
    torch.uint8,
    torch.bool,
)
#: Work queued before each reader of a pool step or a UVA view on CUDA, ms (a reader that ran at call time would
#: read the host's bytes before the host's next writes; behind this it reads them after).
READER_BUSY_MS = 20.0


def _utils(target: Target, contract: str, name: str) -> Any:
    target.require("buffer-utils", contract)
    cls = getattr(target.buffer_utils, name, None)
    if cls is None:
        raise NotApplicable(f"contract '{contract}' needs buffer_utils.{name}, which target '{target.name}' lacks")
    return cls


def _short(op: tuple[Any, ...]) -> str:
    parts = [repr(v) if not isinstance(v, list) or len(v) <= 6 else f"[{len(v)} values: {v[0]!r}, ...]" for v in op[1:]]
    return {"write": "stage_write", "bad": "stage_write", "elem": "stage_write_elem", "apply": "apply_write"}[op[0]] + (
        f"({', '.join(parts)})"
    )


def _schedule_call(spec: dict[str, Any], ops: list[tuple[Any, ...]]) -> str:
    head = f"t = StagedWriteTensor({spec['size']!r}, {spec['dtype']}, {spec['device']!r})"
    return "; ".join([head, *(f"t.{_short(op)}" for op in ops)])


def _refused(
    contract: str, fn: Any, raises: tuple[type[Exception], ...], names: tuple[str, ...], what: str, call: str
) -> None:
    """``fn()`` must raise one of ``raises`` whose message names one of ``names`` as a word (never an ``assert``)."""
    expected = " or ".join(r.__name__ for r in raises) + (f" naming {' or '.join(names)}" if names else "")
    try:
        fn()
    except raises as exc:
        if names and not any(re.search(rf"\b{re.escape(n)}\b", str(exc)) for n in names):
            fail(
                contract,
                f"{what}: the refusal names no argument",
                got=f"{type(exc).__name__}: {exc}",
                expected=expected,
                call=call,
            )
    except Exception as exc:  # noqa: BLE001 - any other type is the failure being reported
        hint = " (an assert: gone under python -O)" if isinstance(exc, AssertionError) else ""
        fail(
            contract,
            f"{what}: wrong exception type{hint}",
            got=f"{type(exc).__name__}: {exc}",
            expected=expected,
            call=call,
        )
    else:
        fail(contract, f"{what}: accepted", got="no exception", expected=expected, call=call)


@check("staged-write")
def check_staged_writes(target: Target, spec: dict[str, Any], schedule: list[tuple[Any, ...]]) -> None:
    """staged-write: the schedule's applies leave ``.gpu`` equal to the model bit for bit; bad writes refused, nothing staged."""
    cls = _utils(target, "staged-write", "StagedWriteTensor")
    size, dtype, row = spec["size"], spec["dtype"], row_length(spec["size"])
    t = cls(size, dtype, torch.device(spec["device"]))
    model = torch.zeros(size, dtype=dtype)  # values converted as torch.tensor converts them
    pending: list[tuple[int, torch.Tensor]] = []
    for i, op in enumerate(schedule):
        call = _schedule_call(spec, list(schedule[: i + 1]))
        if op[0] == "write":
            t.stage_write(op[1], op[2], list(op[3]))
            pending.append((op[1] * row + op[2], torch.tensor(list(op[3]), dtype=dtype)))
        elif op[0] == "elem":
            t.stage_write_elem(op[1], op[2])
            pending.append((op[1] * row, torch.tensor([op[2]], dtype=dtype)))
        elif op[0] == "bad":
            _refused(
                "staged-write",
                lambda op=op: t.stage_write(op[1], op[2], list(op[3])),
                (IndexError, ValueError),
                ("index", "start"),
                f"a write of {len(op[3])} values at row {op[1]}, column {op[2]} of a tensor of size {size}",
                call,
            )
        else:
            t.apply_write()
            synchronize()
            for at, values in pending:
                model.view(-1)[at : at + len(values)] = values
            pending.clear()
            # bit for bit, NaN payloads included: the model's values went through the same conversion
            assert_same_values(t.gpu, model, contract="staged-write", call=call, nan_payloads=True)


@check("staged-write")
def check_staged_dtype_refused(target: Target, dtype: torch.dtype, device: str) -> None:
    """staged-write: a StagedWriteTensor of a dtype outside int32/int64/float32 is refused with ValueError."""
    cls = _utils(target, "staged-write", "StagedWriteTensor")
    call = f"StagedWriteTensor(4, {dtype}, {device!r})"
    _refused("staged-write", lambda: cls(4, dtype, torch.device(device)), (ValueError,), (), f"a {dtype} tensor", call)


@check("fused-writes")
def check_fused_writes(target: Target, specs: list[dict[str, Any]], schedules: list[list[tuple[Any, ...]]]) -> None:
    """fused-writes: one fused apply leaves each tensor as its own apply_write would, and clears every staged write."""
    cls = _utils(target, "fused-writes", "StagedWriteTensor")
    fused_cls = _utils(target, "fused-writes", "FusedStagedWriter")
    device = torch.device(specs[0]["device"])
    pair = [[cls(s["size"], s["dtype"], device) for s in specs] for _ in range(2)]
    for tensors in pair:
        for t, ops in zip(tensors, schedules, strict=True):
            for op in ops:
                if op[0] == "write":
                    t.stage_write(op[1], op[2], list(op[3]))
                elif op[0] == "elem":
                    t.stage_write_elem(op[1], op[2])
    fused, alone = pair
    writer = fused_cls(device, max(1, sum(len(ops) for ops in schedules)))
    ptrs = torch.tensor([t.gpu.data_ptr() for t in fused], dtype=torch.uint64, device=device)
    strides = torch.tensor([t.gpu.stride(0) for t in fused], dtype=torch.int64, device=device)
    made = ", ".join(f"StagedWriteTensor({s['size']!r}, {s['dtype']})" for s in specs)
    call = f"FusedStagedWriter({str(device)!r}, ...).apply([{made}], ptrs, strides)"
    writer.apply(fused, ptrs, strides)
    for t in alone:
        t.apply_write()
    synchronize()
    for k, (a, b) in enumerate(zip(fused, alone, strict=True)):
        # bit for bit against the tensor's twin given its own apply_write
        assert_same_values(a.gpu, b.gpu.cpu(), contract="fused-writes", call=f"{call}  # tensor {k}", nan_payloads=True)
    for t in fused:  # cleared tensors: a write still staged shows on the next apply
        t.gpu.zero_()
        t.apply_write()
    synchronize()
    if any(bool((t.gpu != 0).any()) for t in fused):
        fail(
            "fused-writes",
            "writes still staged after the fused apply",
            got="a later apply_write changed a tensor",
            expected="every staged write cleared",
            call=call,
        )


def _pool_device() -> torch.device:
    return torch.device(f"cuda:{torch.cuda.current_device()}") if torch.cuda.is_available() else torch.device("cpu")


@check("pool")
def check_pool_steps(target: Target, spec: dict[str, Any], steps: list[Any]) -> None:
    """pool: with readers retired ``max_concurrency`` steps later, every reader sees its own step's data (growth included)."""
    cls = _utils(target, "pool", "UvaBufferPool")
    depth = spec["max_concurrency"]
    pool = cls(spec["size"], spec["dtype"], depth)
    call = f"pool = UvaBufferPool({spec['size']!r}, {spec['dtype']}, max_concurrency={depth}); " + "; ".join(
        f"pool.copy_to_uva(<step {k}: {len(x)} rows>)" for k, x in enumerate(steps)
    )
    device = _pool_device()
    readers: list[tuple[int, torch.Tensor, Any]] = []  # (step, what the reader read or the view, its done event)
    for k, x in enumerate(steps):
        while readers and readers[0][0] <= k - depth:  # the caller retires a slot's readers before its reuse
            _judge(readers.pop(0), steps, call)
        view = pool.copy_to_uva(x)
        if device.type == "cuda":
            busy(READER_BUSY_MS, device)
            read = view.clone()  # a kernel queued behind the busy work: reads the slot when it runs
            done = torch.cuda.Event()
            done.record()
            readers.append((k, read, done))
        else:
            readers.append((k, view, None))
    synchronize()
    for r in readers:
        _judge(r, steps, call)


def _judge(reader: tuple[int, torch.Tensor, Any], steps: list[Any], call: str) -> None:
    k, read, done = reader
    if done is not None:
        done.synchronize()
    want = np.asarray(steps[k].numpy() if isinstance(steps[k], torch.Tensor) else steps[k])
    got = read.detach().to("cpu").numpy()
    if got.shape != want.shape or not np.array_equal(got.astype(want.dtype), want):
        fail(
            "pool",
            f"the reader of step {k} (retired before its slot's reuse)",
            got=f"shape {got.shape}, first values {got.reshape(-1)[:4].tolist()}",
            expected=f"shape {want.shape}, first values {want.reshape(-1)[:4].tolist()} (its own step's data)",
            call=call,
        )


@check("pool")
def check_pool_rows_refused(target: Target, spec: dict[str, Any], x: Any) -> None:
    """pool: ``x`` whose rows are not a slot's rows (another trailing shape) is refused, not broadcast."""
    cls = _utils(target, "pool", "UvaBufferPool")
    pool = cls(spec["size"], spec["dtype"], spec["max_concurrency"])
    call = f"UvaBufferPool({spec['size']!r}, {spec['dtype']}, max_concurrency={spec['max_concurrency']}).copy_to_uva(<{type(x).__name__} of shape {tuple(np.shape(x))}>)"
    what = f"x of shape {tuple(np.shape(x))} into slots of size {spec['size']!r}"
    _refused("pool", lambda: pool.copy_to_uva(x), (TypeError, ValueError), ("x",), what, call)


@check("uva")
def check_uva_rows(target: Target, size: Any, dtype: torch.dtype, n: Any) -> None:
    """uva: ``uva(n)`` is ``.cpu[:n]`` for ``n`` in ``[0, rows]`` (all for None); IndexError/TypeError naming ``n`` otherwise."""
    on_cuda = torch.cuda.is_available()
    cls = _utils(target, "uva", "UvaBuffer" if on_cuda else "NonUvaBuffer")
    buf = cls(size, dtype)
    rows = buf.cpu.shape[0]
    buf.cpu.copy_(torch.arange(buf.cpu.numel()).reshape(buf.cpu.shape).to(dtype) + 1)
    call = f"buf = {'UvaBuffer' if on_cuda else 'NonUvaBuffer'}({size!r}, {dtype}); buf.uva({n!r})"
    valid = n is None or (isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= rows)
    if not valid:
        _refused(
            "uva", lambda: buf.uva(n), (IndexError, TypeError, ValueError), ("n",), f"uva({n!r}) with {rows} rows", call
        )
        return
    view = buf.uva(n)
    synchronize()
    want = buf.cpu if n is None else buf.cpu[:n]
    if tuple(view.shape) != tuple(want.shape) or not torch.equal(view.detach().to("cpu"), want):
        fail(
            "uva",
            f"uva({n!r}) with {rows} rows",
            got=f"shape {tuple(view.shape)}",
            expected=f".cpu[:{n}] (shape {tuple(want.shape)})",
            call=call,
        )


@check("uva")
def check_uva_read_at_kernel_time(target: Target, rows: int) -> None:
    """uva (CUDA): a reader of ``uva()`` queued behind busy work sees what the host wrote after the call."""
    cls = _utils(target, "uva", "UvaBuffer")
    device = _pool_device()
    buf = cls(rows, torch.int32)
    call = f"buf = UvaBuffer({rows}, torch.int32); view = buf.uva(); <reader queued behind {READER_BUSY_MS} ms>; buf.np[:] = 7"
    view = buf.uva()
    busy(READER_BUSY_MS, device)
    read = view.clone()
    buf.np[:] = 7
    synchronize()
    if not bool((read.to("cpu") == 7).all()):
        fail(
            "uva",
            "a reader queued before the host's write",
            got=f"{read.to('cpu')[:4].tolist()} (the bytes at the call: a copy, not a view)",
            expected="[7, ...]: a UVA view is read when the kernel runs",
            call=call,
        )


def _device_str(device: torch.device) -> str:
    return str(device) if device.type == "cpu" or device.index is not None else f"cuda:{torch.cuda.current_device()}"


@prop("staged-write")
def prop_staged_writes(target: Target, device: torch.device, **overrides: Any) -> None:
    """staged-write: drawn schedules against the numpy model, bad writes refused."""
    target.require("buffer-utils", "staged-write")
    where = _device_str(device)

    def body(data: st.DataObject) -> None:
        spec = {**data.draw(staged_tensor_specs(), label="tensor"), "device": where}
        check_staged_writes(target, spec, data.draw(staging_schedules(spec), label="schedule"))

    run_given(body, overrides)


def _chunk_schedules(dtype: torch.dtype) -> list[tuple[dict[str, Any], list[tuple[Any, ...]]]]:
    """Fixed schedules across vLLM's 1,024-element chunks: whole rows of 2,100, writes straddling 1,024 and 2,048, overlaps."""

    def values(n: int, base: int) -> list[Any]:
        return [float(base + i) if dtype.is_floating_point else base + i for i in range(n)]

    row = 2 * 1024 + 52
    return [
        ({"size": (3, row), "dtype": dtype}, [("write", 0, 0, values(row, 1)), ("apply",)]),
        (
            {"size": (3, row), "dtype": dtype},
            [("write", 2, 1000, values(1030, 7)), ("write", 2, 1020, values(8, 9000)), ("apply",)],
        ),
        (
            {"size": (2, row), "dtype": dtype},
            [("write", 1, 1023, values(1026, 3)), ("apply",), ("write", 1, 2047, values(row - 2047, 50)), ("apply",)],
        ),
        (
            {"size": (2, 1025), "dtype": dtype},
            [("bad", 0, 1, values(1025, 1)), ("write", 1, 0, values(1025, 2)), ("apply",)],
        ),
    ]


@prop("staged-write", table=True)
def prop_staged_chunks(target: Target, device: torch.device, **overrides: Any) -> None:
    """staged-write: writes of 1,025 to 2,100 values across the chunk boundaries, in every dtype (a table: no luck needed)."""
    target.require("buffer-utils", "staged-write")
    del overrides
    rows = Rows("staged-write chunks")
    for dtype in STAGED_WRITE_DTYPES:
        for spec, schedule in _chunk_schedules(dtype):
            rows.row(check_staged_writes, target, {**spec, "device": _device_str(device)}, schedule)
    rows.finish()


@prop("staged-write", table=True)
def prop_staged_dtypes(target: Target, device: torch.device, **overrides: Any) -> None:
    """staged-write: every dtype outside int32/int64/float32 refused with ValueError (a table)."""
    target.require("buffer-utils", "staged-write")
    del overrides
    rows = Rows("staged-write dtypes")
    for dtype in UNSUPPORTED_STAGED_DTYPES:
        rows.row(check_staged_dtype_refused, target, dtype, _device_str(device))
    rows.finish()


@prop("fused-writes")
def prop_fused_writes(target: Target, device: torch.device, **overrides: Any) -> None:
    """fused-writes: 1 to 4 tensors of drawn dtypes, one fused apply against their own applies."""
    target.require("buffer-utils", "fused-writes")
    where = _device_str(device)

    def body(data: st.DataObject) -> None:
        count = data.draw(st.integers(1, 4), label="tensors")
        specs = [{**data.draw(staged_tensor_specs(), label="tensor"), "device": where} for _ in range(count)]
        schedules = [data.draw(staging_schedules(s, bad=False), label="schedule") for s in specs]
        check_fused_writes(target, specs, schedules)

    run_given(body, overrides)


@prop("pool")
def prop_pool_steps(target: Target, device: torch.device, **overrides: Any) -> None:
    """pool: drawn step schedules (growth included), readers retired max_concurrency steps later."""
    target.require("buffer-utils", "pool")
    del device  # the pool's slots live on this platform's device (CUDA where UVA is available), whatever the test's

    def body(data: st.DataObject) -> None:
        spec = data.draw(pool_specs(), label="pool")
        check_pool_steps(target, spec, data.draw(pool_schedules(spec), label="steps"))

    run_given(body, overrides)


@prop("pool", table=True)
def prop_pool_rows(target: Target, device: torch.device, **overrides: Any) -> None:
    """pool: rows of another shape refused (1-D slots given 2-D rows, rows of 3 given rows of 2 or flat values)."""
    target.require("buffer-utils", "pool")
    del device  # the pool's slots live on this platform's device (CUDA where UVA is available), whatever the test's
    del overrides
    rows = Rows("pool rows")
    cases = [
        ({"size": 4, "dtype": torch.int32, "max_concurrency": 2}, np.zeros((2, 3), dtype=np.int32)),
        ({"size": (4, 3), "dtype": torch.int32, "max_concurrency": 2}, np.zeros((2, 2), dtype=np.int32)),
        ({"size": (4, 3), "dtype": torch.int32, "max_concurrency": 2}, [1, 2]),
        ({"size": (4, 3), "dtype": torch.float32, "max_concurrency": 2}, torch.zeros(2, 1)),
    ]
    for spec, x in cases:
        rows.row(check_pool_rows_refused, target, spec, x)
    rows.finish()


@prop("uva", table=True)
def prop_uva_rows(target: Target, device: torch.device, **overrides: Any) -> None:
    """uva: uva(n) for n in [0, rows] and None, refusals past the rows, negative, float and bool (a table)."""
    target.require("buffer-utils", "uva")
    del device  # the pool's slots live on this platform's device (CUDA where UVA is available), whatever the test's
    del overrides
    rows = Rows("uva rows")
    for size in (5, (5, 3)):
        for n in (None, 0, 1, 5, 6, 9, -1, 2.0, True):
            rows.row(check_uva_rows, target, size, torch.int64, n)
    rows.finish()


@prop("uva", table=True)
def prop_uva_kernel_time(target: Target, device: torch.device, **overrides: Any) -> None:
    """uva (CUDA): a view's values are the host's when the reader runs."""
    target.require("buffer-utils", "uva")
    if not torch.cuda.is_available() or device.type != "cuda":
        raise NotApplicable("contract 'uva': a read at kernel time needs a CUDA device")
    del overrides
    for n in (1, 1000, 1 << 20):
        check_uva_read_at_kernel_time(target, n)
