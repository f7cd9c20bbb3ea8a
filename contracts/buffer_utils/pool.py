"""Contracts of Model Runner V2's pinned buffers: ``pool`` (round-robin slots, ``UvaBackedTensor``) and ``uva`` (views)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

from h2d_contracts.harness.calling import synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.registry import prop
from h2d_contracts.harness.runner import Rows, run_given
from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable, fail
from h2d_contracts.strategies.schedules import pool_schedules, pool_specs

from ..gpu.timing import busy
from .common import READER_BUSY_MS, pool_device, refused, utils

__all__ = ["check_pool_rows_refused", "check_pool_steps", "check_uva_read_at_kernel_time", "check_uva_rows"]


@check("pool")
def check_pool_steps(target: Target, spec: dict[str, Any], steps: list[Any]) -> None:
    """pool: with readers retired ``max_concurrency`` steps later, every reader sees its own step's data (growth included)."""
    cls = utils(target, "pool", "UvaBufferPool")
    depth = spec["max_concurrency"]
    pool = cls(spec["size"], spec["dtype"], depth)
    call = f"pool = UvaBufferPool({spec['size']!r}, {spec['dtype']}, max_concurrency={depth}); " + "; ".join(
        f"pool.copy_to_uva(<step {k}: {len(x)} rows>)" for k, x in enumerate(steps)
    )
    device = pool_device()
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
    cls = utils(target, "pool", "UvaBufferPool")
    pool = cls(spec["size"], spec["dtype"], spec["max_concurrency"])
    call = f"UvaBufferPool({spec['size']!r}, {spec['dtype']}, max_concurrency={spec['max_concurrency']}).copy_to_uva(<{type(x).__name__} of shape {tuple(np.shape(x))}>)"
    what = f"x of shape {tuple(np.shape(x))} into slots of size {spec['size']!r}"
    refused("pool", lambda: pool.copy_to_uva(x), (TypeError, ValueError), ("x",), what, call)


@check("uva")
def check_uva_rows(target: Target, size: Any, dtype: torch.dtype, n: Any) -> None:
    """uva: ``uva(n)`` is ``.cpu[:n]`` for ``n`` in ``[0, rows]`` (all for None); IndexError/TypeError naming ``n`` otherwise."""
    on_cuda = torch.cuda.is_available()
    cls = utils(target, "uva", "UvaBuffer" if on_cuda else "NonUvaBuffer")
    buf = cls(size, dtype)
    rows = buf.cpu.shape[0]
    buf.cpu.copy_(torch.arange(buf.cpu.numel()).reshape(buf.cpu.shape).to(dtype) + 1)
    call = f"buf = {'UvaBuffer' if on_cuda else 'NonUvaBuffer'}({size!r}, {dtype}); buf.uva({n!r})"
    valid = n is None or (isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= rows)
    if not valid:
        refused(
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
    cls = utils(target, "uva", "UvaBuffer")
    device = pool_device()
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
