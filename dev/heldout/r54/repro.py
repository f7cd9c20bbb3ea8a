"""Reproductions of round r54 on this (CPU-only) host.

Run from ``dev/heldout``::

    . /work/main/.venv/bin/activate && python -m r54.repro

All sixteen bugs are in Model Runner V2's utilities and CPU-visible. For each: its smallest input
(from the module's docstring) on the control (``b00_control``, the unmodified reference through
the same plumbing) and on the bug; asserted: the control's outcome is the reference outcome the
docstring states (``expect``), and the bug's outcome differs from the control's. b10 has a second
case (the engine's: ``.gpu`` written by a kernel between two applies). State the cases change is
restored after each run: grad mode (b02) and every other torch/Python setting a case could touch
through ``restored()``; the worker threads b01 starts are shut down by the case itself after it
has counted them; b06's second thread is joined. One line per case; the output is saved as
``repro_output.txt``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import r54  # noqa: F401  (sets plumbing.ROUND)

CONTROL = "b00_control"
HERE = __file__.rsplit("/", 1)[0]


# --------------------------------------------------------------------------- outcomes


def snap(x: Any) -> Any:
    """A comparable, printable summary of a value (tensors by dtype, shape and values or a digest)."""
    if isinstance(x, torch.Tensor):
        t = x.detach()
        if t.numel() <= 8:
            vals: Any = t.cpu().tolist()
        else:
            raw = t.cpu().contiguous().view(-1)
            vals = "sha1:" + hashlib.sha1(raw.view(torch.uint8).numpy().tobytes()).hexdigest()[:12]
        return ("tensor", str(t.dtype), tuple(t.shape), vals)
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
    except Exception as exc:  # noqa: BLE001  (every exception is an outcome here)
        msg = str(exc).splitlines()[0] if str(exc) else ""
        return ("raise", type(exc).__name__, msg[:100])


def norm(x: Any) -> Any:
    """Lists as tuples, recursively (``snap`` leaves a tensor's values a list)."""
    if isinstance(x, (list, tuple)):
        return tuple(norm(v) for v in x)
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items()}
    return x


def same(a: Any, b: Any) -> bool:
    return norm(a) == norm(b)


def raised(o: Any, exc: str) -> bool:
    return o[0] == "raise" and o[1] == exc


def short(o: Any, width: int = 130) -> str:
    s = repr(o)
    return s if len(s) <= width else s[: width - 3] + "..."


@contextlib.contextmanager
def restored():
    """Process-wide state a case may change: grad mode (b02), the default dtype, warnings."""
    grad, dtype = torch.is_grad_enabled(), torch.get_default_dtype()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        torch.set_grad_enabled(grad)
        torch.set_default_dtype(dtype)


# --------------------------------------------------------------------------- cases (smallest inputs)

I32 = torch.int32


def _t(vals: Any, dtype: str = "torch.int32") -> tuple[Any, ...]:
    """The snap of a small tensor: ("tensor", dtype, shape, values)."""
    arr = np.array(vals)
    return ("tensor", dtype, arr.shape, vals)


def _raises(exc: str, start: str = "") -> Callable[[Any], bool]:
    return lambda o: raised(o, exc) and o[2].startswith(start)


def _ptrs(*ts: Any) -> torch.Tensor:
    return torch.tensor([t.gpu.data_ptr() for t in ts], dtype=torch.uint64)


def _b01(t):
    bu = t.buffer_utils
    s = bu.StagedWriteTensor(2, I32, "cpu")
    s.stage_write_elem(1, 7)
    w = bu.FusedStagedWriter("cpu", 1)
    before = {th.ident for th in threading.enumerate()}
    w.apply([s], _ptrs(s), torch.tensor([1]))
    left = sorted(th.name for th in threading.enumerate() if th.ident not in before)
    ex = w.__dict__.get("_convert_pool")
    if ex is not None:  # restore: the bug's worker threads, counted above, shut down
        ex.shutdown(wait=True)
    return {".gpu": s.gpu, "threads left running": left}


def _b02(t):
    s = t.buffer_utils.StagedWriteTensor(2, I32, "cpu")
    s.stage_write_elem(0, 5)
    torch.set_grad_enabled(True)
    s.apply_write()
    return {".gpu": s.gpu, "grad enabled after": torch.is_grad_enabled()}


def _b04(t):
    s = t.buffer_utils.StagedWriteTensor(1, torch.int64, "cpu")
    staged = outcome(lambda: s.stage_write_elem(0, 2**31))
    s.apply_write()
    return {"stage_write_elem": staged, ".gpu": s.gpu}


def _b05(t):
    s = t.buffer_utils.StagedWriteTensor((2, 4), I32, "cpu")
    s.stage_write(0, 0, [1, 2])
    s.stage_write(1, 2, [5])
    s.apply_write()
    return s.gpu


def _b06(t):
    p = t.buffer_utils.UvaBufferPool(2, I32)
    a = p.copy_to_uva([1, 1])
    err: list[BaseException] = []

    def other() -> None:
        try:
            p.copy_to_uva([2, 2])
        except BaseException as e:  # noqa: BLE001
            err.append(e)

    th = threading.Thread(target=other)
    th.start()
    th.join()
    if err:
        raise err[0]
    return a


def _b08(t):
    bu = t.buffer_utils
    bu.UvaBufferPool(2, I32, max_concurrency=1)
    p = bu.UvaBufferPool(2, I32)
    a = p.copy_to_uva([1, 1])
    p.copy_to_uva([2, 2])
    return {"a": a, "p.max_concurrency": p.max_concurrency}


def _b09(t):
    b = t.buffer_utils.UvaBackedTensor(2, I32)
    b.np[:] = [1, 1]
    b.copy_to_uva()
    b.np[0] = 5
    return b.copy_to_uva()


def _b10(t):
    s = t.buffer_utils.StagedWriteTensor(1, I32, "cpu")
    s.stage_write_elem(0, 7)
    s.stage_write_elem(0, 0)
    s.apply_write()
    return s.gpu


def _b10_engine(t):
    s = t.buffer_utils.StagedWriteTensor(1, I32, "cpu")
    s.stage_write_elem(0, 5)
    s.apply_write()
    s.gpu[0] = 9  # a kernel's in-place update of .gpu
    s.stage_write_elem(0, 5)
    s.apply_write()
    return s.gpu


def _b12(t):
    p = t.buffer_utils.UvaBufferPool(1, I32)
    p.copy_to_uva([1, 2])
    return p.copy_to_uva([3, 4])


def _b13(t):
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(2, I32, "cpu"), bu.StagedWriteTensor(2, I32, "cpu")
    w = bu.FusedStagedWriter("cpu", 1)
    w.apply([a, b], _ptrs(a, b), torch.tensor([1, 1]))
    b.stage_write_elem(0, 7)
    w.apply([a], _ptrs(a), torch.tensor([1]))
    b.apply_write()
    return b.gpu


def _b14(t):
    s = t.buffer_utils.StagedWriteTensor(2, I32, "cpu")
    staged = outcome(lambda: s.stage_write(0, 0, [1.5]))
    s.apply_write()
    return {"stage_write": staged, ".gpu": s.gpu}


def _b15(t):
    s = t.buffer_utils.StagedWriteTensor(4, I32, "cpu")
    staged = outcome(lambda: s.stage_write(1, 1, [5]))
    s.apply_write()
    return {"stage_write": staged, ".gpu": s.gpu}


# name -> (input as text, case, expectation on the control's outcome: the reference outcome the docstring states)
CASES: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], bool]]] = {
    "b01_fused_conversions_on_worker_threads": (
        "t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write_elem(1, 7); "
        "FusedStagedWriter('cpu', 1).apply([t], ptrs(t), [1]); threads started and left running?",
        _b01,
        lambda o: same(o, ("ok", {".gpu": _t([0, 7]), "threads left running": []})),
    ),
    "b02_staged_apply_leaves_grad_off": (
        "t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write_elem(0, 5); t.apply_write(); torch.is_grad_enabled()",
        _b02,
        lambda o: same(o, ("ok", {".gpu": _t([5, 0]), "grad enabled after": True})),
    ),
    "b03_pool_host_out_skips_slot": (
        "UvaBufferPool(1, torch.int32).copy_to_gpu([2**40], out=torch.zeros(1, dtype=torch.int32))",
        lambda t: t.buffer_utils.UvaBufferPool(1, I32).copy_to_gpu([2**40], out=torch.zeros(1, dtype=I32)),
        _raises("OverflowError", "Python integer 1099511627776 out of bounds for int32"),
    ),
    "b04_staged_values_int32_kernel_range": (
        "t = StagedWriteTensor(1, torch.int64, 'cpu'); t.stage_write_elem(0, 2**31); t.apply_write(); t.gpu",
        _b04,
        lambda o: same(o, ("ok", {"stage_write_elem": ("ok", None), ".gpu": _t([2**31], "torch.int64")})),
    ),
    "b05_staged_adjacent_writes_coalesced": (
        "t = StagedWriteTensor((2, 4), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2]); t.stage_write(1, 2, [5]); "
        "t.apply_write(); t.gpu",
        _b05,
        lambda o: same(o, ("ok", _t([[1, 2, 0, 0], [0, 0, 5, 0]]))),
    ),
    "b06_pool_cursor_per_thread": (
        "p = UvaBufferPool(2, torch.int32); a = p.copy_to_uva([1, 1]); <another thread> p.copy_to_uva([2, 2]); a",
        _b06,
        lambda o: same(o, ("ok", _t([1, 1]))),
    ),
    "b07_pool_depth_one_refused": (
        "UvaBufferPool(2, torch.int32, max_concurrency=1).copy_to_uva([1, 2])",
        lambda t: t.buffer_utils.UvaBufferPool(2, I32, max_concurrency=1).copy_to_uva([1, 2]),
        lambda o: same(o, ("ok", _t([1, 2]))),
    ),
    "b08_pool_depth_becomes_default": (
        "UvaBufferPool(2, torch.int32, max_concurrency=1); p = UvaBufferPool(2, torch.int32); "
        "a = p.copy_to_uva([1, 1]); p.copy_to_uva([2, 2]); (a, p.max_concurrency)",
        _b08,
        lambda o: same(o, ("ok", {"a": _t([1, 1]), "p.max_concurrency": 2})),
    ),
    "b09_backed_changed_rows_only": (
        "t = UvaBackedTensor(2, torch.int32); t.np[:] = [1, 1]; t.copy_to_uva(); t.np[0] = 5; t.copy_to_uva()",
        _b09,
        lambda o: same(o, ("ok", _t([5, 1]))),
    ),
    "b10_staged_host_shadow_elides_writes": (
        "t = StagedWriteTensor(1, torch.int32, 'cpu'); t.stage_write_elem(0, 7); t.stage_write_elem(0, 0); "
        "t.apply_write(); t.gpu",
        _b10,
        lambda o: same(o, ("ok", _t([0]))),
    ),
    "b10_staged_host_shadow_elides_writes (engine)": (
        "t = StagedWriteTensor(1, torch.int32, 'cpu'); t.stage_write_elem(0, 5); t.apply_write(); t.gpu[0] = 9; "
        "t.stage_write_elem(0, 5); t.apply_write(); t.gpu",
        _b10_engine,
        lambda o: same(o, ("ok", _t([5]))),
    ),
    "b11_pool_other_dtype_tensor_refused": (
        "UvaBufferPool(2, torch.int32).copy_to_uva(torch.tensor([1, 2]))",
        lambda t: t.buffer_utils.UvaBufferPool(2, I32).copy_to_uva(torch.tensor([1, 2])),
        lambda o: same(o, ("ok", _t([1, 2]))),
    ),
    "b12_pool_capacity_tracked_once": (
        "p = UvaBufferPool(1, torch.int32); p.copy_to_uva([1, 2]); p.copy_to_uva([3, 4])",
        _b12,
        lambda o: same(o, ("ok", _t([3, 4]))),
    ),
    "b13_fused_clears_every_known_tensor": (
        "a, b = StagedWriteTensor(2, torch.int32, 'cpu') x2; w = FusedStagedWriter('cpu', 1); "
        "w.apply([a, b], ptrs(a, b), [1, 1]); b.stage_write_elem(0, 7); w.apply([a], ptrs(a), [1]); "
        "b.apply_write(); b.gpu",
        _b13,
        lambda o: same(o, ("ok", _t([7, 0]))),
    ),
    "b14_staged_contents_typed_array": (
        "t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write(0, 0, [1.5]); t.apply_write(); t.gpu",
        _b14,
        lambda o: same(o, ("ok", {"stage_write": ("ok", None), ".gpu": _t([1, 0])})),
    ),
    "b15_staged_1d_start_ignored": (
        "t = StagedWriteTensor(4, torch.int32, 'cpu'); t.stage_write(1, 1, [5]); t.apply_write(); t.gpu",
        _b15,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["stage_write"], "IndexError")
            and o[1]["stage_write"][2] == "start=1 with 1 values is outside a row of 1 elements"
            and same(o[1][".gpu"], _t([0, 0, 0, 0]))
        ),
    ),
    "b16_pool_strided_steps_refused": (
        "UvaBufferPool(2, torch.int32).copy_to_uva(np.arange(4, dtype=np.int32)[::2])",
        lambda t: t.buffer_utils.UvaBufferPool(2, I32).copy_to_uva(np.arange(4, dtype=np.int32)[::2]),
        lambda o: same(o, ("ok", _t([0, 2]))),
    ),
}


def main() -> int:
    assert not torch.cuda.is_available(), "this reproduction is written for a CPU-only host"
    lines: list[str] = []

    def say(s: str = "") -> None:
        print(s)
        lines.append(s)

    control = importlib.import_module(f"r54.{CONTROL}").target()
    say(f"control: {control.name}; torch {torch.__version__}, numpy {np.__version__}, CUDA available: False")
    bugs = sorted({name.split(" ")[0] for name in CASES})
    say(f"{len(bugs)} CPU bugs, {len(CASES)} cases (each must differ from the control)")
    say("each line: case | status | control's outcome | bug's outcome | input")
    failed: list[str] = []
    differ: set[str] = set()
    threads0 = threading.active_count()
    for name, (text, case, expect) in CASES.items():
        module = name.split(" ")[0]
        bug = importlib.import_module(f"r54.{module}").target()
        control = importlib.import_module(f"r54.{CONTROL}").target()  # fresh: pools and state of its own
        with restored():
            ref = outcome(lambda case=case, control=control: case(control))
        with restored():
            got = outcome(lambda case=case, bug=bug: case(bug))
        if not expect(ref):
            status = "CONTROL-WRONG"
        else:
            status = "DIFFER" if not same(ref, got) else "SAME"
        if status == "DIFFER":
            differ.add(module)
        say(f"{name} | CPU {status} | control: {short(ref)} | bug: {short(got)} | input: {text}")
        if status != "DIFFER":
            failed.append(f"{name} ({status})")
    say()
    left = threading.active_count() - threads0
    say(f"state after the run: grad enabled {torch.is_grad_enabled()}, threads left by the cases {left}")
    if failed:
        say(f"FAILED: {failed}")
    else:
        say(
            f"{len(differ)} of {len(bugs)} CPU bugs differ from the control on their smallest input "
            f"({len(CASES)} cases); the control gives every reference outcome"
        )
    with open(f"{HERE}/repro_output.txt", "w") as fh:
        fh.write("\n".join(lines) + "\n")
    if failed:
        raise AssertionError(f"repro failed for {failed}")
    assert torch.is_grad_enabled() and left == 0, "a case left process state changed"
    return 0


if __name__ == "__main__":
    sys.exit(main())
