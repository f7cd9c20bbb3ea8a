"""Reproductions of round r49 on this (CPU-only) host.

Run from ``dev/heldout``::

    /work/main/.venv/bin/python -m r49.repro

Every bug of r49 is GPU-only. For each, a set of representative public calls (the CUDA fast
path's and the small pool's host counterparts: lists, arrays, tensors, conversions, tensors
that require grad, calls under ``torch.inference_mode()``, payloads that fill a 1 MiB chunk
unevenly, sources overwritten after the call, bad input cold and after warm calls, ``out``,
the CPU variant, threads, ``empty_cache``) is made on the control (``b00_control``) and on the
bug, and asserted to behave the same; the GPU input that shows the bug is printed from the
module's docstring. Each bug's target is also checked to run the changed code where CUDA
would (its ``_fast_path`` or its ``StagingPool``), and the three pool bugs are shown on the
reference's own device-generic pool API under a simulated clock (streams and events as the
pool sees them), where they must differ from the reference pool. The output is also written
to ``r49/repro_output.txt``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import pathlib
import sys
import threading
from typing import Any, Callable

import numpy as np
import torch

import r49  # noqa: F401  (sets plumbing.ROUND)

CONTROL = "b00_control"

GPU_BUGS = [
    "b01_fast_pinned_test_dropped",
    "b02_fast_grad_unchecked",
    "b03_fast_pinned_array_dma",
    "b04_fast_host_check_dropped",
    "b05_chunk_stream_set_once",
    "b06_small_fit_ignores_payload",
    "b07_view_cache_inference_mode",
    "b08_fast_pinned_as_tensor",
]


# --------------------------------------------------------------------------- outcomes


def snap(x: Any) -> Any:
    """A comparable, printable summary of a value (tensors by dtype, device, shape, strides, autograd state and bytes)."""
    if isinstance(x, torch.Tensor):
        t = x.detach()
        if t.numel() <= 8:
            vals: Any = t.cpu().tolist()
        else:
            raw = t.cpu().contiguous().view(-1)
            vals = "sha1:" + hashlib.sha1(raw.view(torch.uint8).numpy().tobytes()).hexdigest()[:12]
        return (
            "tensor",
            str(t.dtype),
            str(t.device),
            tuple(t.shape),
            t.stride(),
            t.is_contiguous(),
            bool(x.requires_grad),
            x.grad_fn is not None,
            x.is_inference(),
            vals,
        )
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.shape, x.tolist() if x.size <= 8 else "...")
    if isinstance(x, (list, tuple)):
        return tuple(snap(v) for v in x)
    if isinstance(x, dict):
        return {k: snap(v) for k, v in x.items()}
    return x


def outcome(fn: Callable[[], Any]) -> Any:
    try:
        return ("ok", snap(fn()))
    except Exception as exc:  # every exception is an outcome here
        msg = str(exc).splitlines()[0] if str(exc) else ""
        return ("raise", type(exc).__name__, msg[:110])


def short(o: Any, width: int = 150) -> str:
    s = repr(o)
    return s if len(s) <= width else s[: width - 3] + "..."


# --------------------------------------------------------------------------- host checks of the GPU-only bugs


def _warm_then_bad(t, bad: Callable[[], Any]) -> Any:
    """Valid calls over several spellings and kinds first (whatever the target caches is filled), then ``bad``."""
    for dev in ("cpu", torch.device("cpu"), "cpu:0", torch.device("cpu", 0)):
        t.async_tensor_h2d([1, 2], device=dev)
        t.async_tensor_h2d(np.arange(3, dtype=np.int32), device=dev)
        t.async_tensor_h2d(torch.ones(2), device=dev, dtype=torch.float64)
    return bad()


def _overwritten_after(t, make: Callable[[], Any], fill: Callable[[Any], None]) -> Any:
    data = make()
    r = t.async_tensor_h2d(data, device="cpu")
    fill(data)
    return r


def _inference_then_outside(t) -> Any:
    with torch.inference_mode():
        a = t.async_tensor_h2d([1], device="cpu")
    b = t.async_tensor_h2d([2], device="cpu")
    return [a, b]


def _grad_then_list(t) -> Any:
    x = torch.ones(2, requires_grad=True)
    r = t.async_tensor_h2d(x, device="cpu")
    return {"result": r, "x.requires_grad": x.requires_grad, "next float list": t.async_tensor_h2d([1.5], device="cpu")}


def _uneven_fill(t) -> Any:
    out = [t.async_tensor_h2d([1], device="cpu")]
    out += [t.async_tensor_h2d(np.full(65536, i, np.float32), device="cpu") for i in range(4)]
    return out


def _mixed_dtypes(t) -> Any:
    return [
        t.async_tensor_h2d([1, 2], device="cpu"),
        t.async_tensor_h2d([1.5, 2.5], device="cpu"),
        t.async_tensor_h2d([True, False], device="cpu"),
        t.async_tensor_h2d((3, 4), device="cpu", dtype=torch.float32),
        t.async_tensor_h2d([5, 6], device="cpu", dtype=torch.int8),
    ]


def _threads(t) -> str:
    errors: list[str] = []

    def work(k: int) -> None:
        for i in range(200):
            data = [k * 1000 + i, i, k]
            r = t.async_tensor_h2d(data, device="cpu")
            if r.tolist() != data:
                errors.append(f"thread {k} call {i}: {r.tolist()} != {data}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return "all right" if not errors else f"{len(errors)} wrong: {errors[0]}"


def host_calls(t) -> dict[str, Any]:
    """The public calls whose CUDA half the r49 bugs change (fast path, small pool, chunks), made on the host."""
    calls: dict[str, Callable[[], Any]] = {
        "small lists of each kind": lambda: _mixed_dtypes(t),
        "int32 array": lambda: t.async_tensor_h2d(np.arange(4, dtype=np.int32), device="cpu"),
        "int32 array -> int64": lambda: t.async_tensor_h2d(np.arange(100, dtype=np.int32), device="cpu", dtype=torch.int64),
        "array over a tensor's memory (like .np)": lambda: t.async_tensor_h2d(torch.ones(4, dtype=torch.int32).numpy(), device="cpu"),
        "pageable tensor, own dtype": lambda: t.async_tensor_h2d(torch.arange(4, dtype=torch.int32), device="cpu"),
        "pageable tensor, 16 MiB": lambda: t.async_tensor_h2d(torch.zeros(1 << 22, dtype=torch.int32), device="cpu"),
        "pageable tensor -> float64": lambda: t.async_tensor_h2d(torch.arange(4, dtype=torch.int32), device="cpu", dtype=torch.float64),
        "transposed tensor": lambda: t.async_tensor_h2d(torch.arange(6, dtype=torch.int64).view(2, 3).t(), device="cpu"),
        "column slice": lambda: t.async_tensor_h2d(torch.arange(8, dtype=torch.int32).view(4, 2)[:, 1], device="cpu"),
        "tensor requiring grad, then a float list": lambda: _grad_then_list(t),
        "tensor requiring grad -> int64": lambda: t.async_tensor_h2d(torch.tensor([1.5, 2.0], requires_grad=True), device="cpu", dtype=torch.int64),
        "under inference_mode, then outside": lambda: _inference_then_outside(t),
        "[1] then four 256 KiB arrays": lambda: _uneven_fill(t),
        "2 MiB arrays back to back": lambda: [
            t.async_tensor_h2d(np.full(1 << 19, 1, np.int32), device="cpu"),
            t.async_tensor_h2d(np.full(1 << 19, 2, np.int32), device="cpu"),
        ],
        "array overwritten after the call": lambda: _overwritten_after(t, lambda: np.ones(4, np.int32), lambda a: a.fill(2)),
        "tensor overwritten after the call": lambda: _overwritten_after(t, lambda: torch.ones(4), lambda x: x.fill_(2)),
        "into out": lambda: t.async_tensor_h2d([1, 2], out=torch.zeros(2, dtype=torch.int32)),
        "device='cuda' on this host": lambda: t.async_tensor_h2d([1], device="cuda"),
        "device='cuda:0' on this host": lambda: t.async_tensor_h2d([1], device="cuda:0"),
        "device=0 on this host": lambda: t.async_tensor_h2d(torch.ones(2), device=0),
        "meta tensor as data, after warm calls": lambda: _warm_then_bad(
            t, lambda: t.async_tensor_h2d(torch.ones(2, device="meta"), device="cpu")
        ),
        "qint8 dtype, after warm calls": lambda: _warm_then_bad(t, lambda: t.async_tensor_h2d([1], device="cpu", dtype=torch.qint8)),
        "NaN into int32, after warm calls": lambda: _warm_then_bad(
            t, lambda: t.async_tensor_h2d(np.array([np.nan], np.float32), device="cpu", dtype=torch.int32)
        ),
        "no target": lambda: t.async_tensor_h2d([1]),
        "CPU variant, small list": lambda: t.cpu_variant([1, 2], device="cpu"),
        "empty_cache()": lambda: t.empty_cache(),
    }
    res = {k: outcome(v) for k, v in calls.items()}
    res["8 threads x 200 calls"] = outcome(lambda: _threads(t))
    return res


def wired(mod: Any, bug: Any) -> bool:
    """Whether the bug's target runs the module's changed function or class (so a GPU run meets it)."""
    g = bug.async_tensor_h2d.__globals__
    if hasattr(mod, "_fast_path"):
        return g["_fast_path"].__code__ is mod._fast_path.__code__
    return g["_staging"].pool_for.__globals__["StagingPool"] is mod.StagingPool


# --------------------------------------------------------------------------- the pool bugs under a simulated clock


class _SimStream:
    def __init__(self) -> None:
        self.queued = self.done = 0


class _SimEvent:
    def __init__(self) -> None:
        self.stream: Any = None
        self.seq = 0

    def record(self, stream: _SimStream) -> None:
        self.stream, self.seq = stream, stream.queued

    def query(self) -> bool:
        return self.stream is None or self.stream.done >= self.seq

    def synchronize(self) -> None:
        raise RuntimeError("the simulation never waits")


class _SimClock:
    """Streams and events as the pool sees them: an event is complete once its stream has run what preceded it."""

    def __init__(self) -> None:
        self.cur = _SimStream()

    def stream_key(self) -> int:
        return id(self.cur)

    def current_stream(self) -> _SimStream:
        return self.cur

    def event(self) -> _SimEvent:
        return _SimEvent()


def _sim_two_streams(cls: Any) -> Any:
    """b05's GPU input on a simulated clock: what the queued copy on the busy side stream reads when it runs."""
    clk = _SimClock()
    default, side = clk.cur, _SimStream()
    pool = cls(torch.device("cpu"), 2 << 20, pin=False, small=False, clock=clk)

    def call(value: int) -> torch.Tensor:
        block = pool.take(2 << 20)
        pool.mark_start(block)
        staging = block.tensor(torch.Size([4]), torch.int32)
        staging.fill_(value)
        clk.cur.queued += 1  # the DMA reading the staging
        pool.give_back(block)
        return staging

    call(0)
    default.done = default.queued  # synchronize
    clk.cur = side
    side.queued += 1  # torch.cuda._sleep on the side stream
    read = call(1)
    clk.cur = default
    default.done = default.queued  # the default stream is idle
    call(2)
    return read.tolist()


def _sim_uneven_fill(cls: Any) -> Any:
    pool = cls(torch.device("cpu"), 1 << 20, pin=False, small=True, clock=None)
    pool.small_tensor(torch.Size([1]), torch.int64, 8)
    return [tuple(pool.small_tensor(torch.Size([65536]), torch.float32, 262144).shape) for _ in range(4)]


def _sim_inference_view(cls: Any) -> Any:
    pool = cls(torch.device("cpu"), 1 << 20, pin=False, small=True, clock=None)
    with torch.inference_mode():
        pool.small_tensor(torch.Size([1]), torch.int64, 8).copy_(torch.tensor([1]))
    return pool.small_tensor(torch.Size([1]), torch.int64, 8).copy_(torch.tensor([2]))


SIMULATED: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "b05_chunk_stream_set_once": ("block reused across streams (b05's GPU input): the side stream's copy reads", _sim_two_streams),
    "b06_small_fit_ignores_payload": ("small_tensor: [1], then four 256 KiB float32 slices", _sim_uneven_fill),
    "b07_view_cache_inference_mode": ("small_tensor under inference_mode, then a write outside it", _sim_inference_view),
}


def gpu_input(mod: Any) -> str:
    doc = mod.__doc__ or ""
    i = doc.find("GPU input")
    return " ".join(doc[i:].split()) if i >= 0 else "(see the module docstring)"


# --------------------------------------------------------------------------- main


def run() -> list[str]:
    assert not torch.cuda.is_available(), "this reproduction is written for a CPU-only host"
    control = importlib.import_module(f"r49.{CONTROL}").target()
    print(f"control: {control.name}; torch {torch.__version__}, numpy {np.__version__}, CUDA available: False")
    print()
    print("=" * 100)
    print("GPU-only bugs: public calls on this host, control vs bug (must agree)")
    print("=" * 100)
    failed: list[str] = []
    for name in GPU_BUGS:
        mod = importlib.import_module(f"r49.{name}")
        bug = mod.target()
        ref = host_calls(importlib.import_module(f"r49.{CONTROL}").target())  # a fresh control: fresh pools
        got = host_calls(bug)
        same = ref == got
        print(f"{name}  (target {bug.name})")
        for key in ref:
            mark = "same" if ref[key] == got.get(key) else "DIFFERENT"
            print(f"  {mark:9} {key}: {short(got.get(key), 110)}")
            if ref[key] != got.get(key):
                print(f"            control: {short(ref[key], 110)}")
        ok_wired = wired(mod, bug)
        print(f"  host behaviour identical: {same}")
        print(f"  the changed code is what the target runs on CUDA: {ok_wired}")
        if name in SIMULATED:
            from h2d_contracts.h2d_impl import _staging

            text, sim = SIMULATED[name]
            ref_sim, bug_sim = outcome(lambda: sim(_staging.StagingPool)), outcome(lambda: sim(mod.StagingPool))
            print(f"  simulated pool, {text}:")
            print(f"    reference pool: {short(ref_sim, 120)}")
            print(f"    bug's pool:     {short(bug_sim, 120)}")
            ok_wired = ok_wired and ref_sim != bug_sim
        print(f"  {gpu_input(mod)}")
        if not (same and ok_wired):
            failed.append(name)
        print()
    if failed:
        print(f"FAILED: {failed}")
    else:
        print(f"all {len(GPU_BUGS)} GPU-only bugs behave as the control on this host")
    return failed


def main() -> int:
    buf = io.StringIO()

    class Tee(io.TextIOBase):
        def write(self, s: str) -> int:
            sys.__stdout__.write(s)
            return buf.write(s)

    with contextlib.redirect_stdout(Tee()):
        failed = run()
    (pathlib.Path(__file__).parent / "repro_output.txt").write_text(buf.getvalue())
    if failed:
        raise AssertionError(f"repro failed for {failed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
