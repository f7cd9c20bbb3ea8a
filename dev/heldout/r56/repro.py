"""Reproductions of round r56 on this (CPU-only) host.

Run from ``dev/heldout``::

    /work/main/.venv/bin/python -m r56.repro

All sixteen bugs are CPU-visible. For each: its smallest input (from the module's docstring) on
a fresh control (``b00_control``, the unmodified reference through the same plumbing) and on a
fresh bug target; asserted: the control's outcome is the reference outcome the docstring states
(``expect``), and the bug's outcome differs from the control's. b01, b03, b06 and b16 have a second
case. State a case changes is restored: numpy's error state (b12) and torch's default dtype and grad
mode by ``restored()`` around every run, the collector's permanent generation (b14) by
``gc.unfreeze()`` when a case froze it, and the locks b07 and b11 leave held are released by the case
once it has seen a call block, so its thread ends (joined). The run checks at the end that no thread
is left and nothing is frozen. One line per case; the output is printed and written to
``r56/repro_output.txt``.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import importlib
import os
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import r56  # noqa: F401  (sets plumbing.ROUND)

CONTROL = "b00_control"


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
    """Process-wide state a case may change: numpy's error state (b12), the default dtype, grad mode, warnings."""
    errstate, dtype, grad = np.geterr(), torch.get_default_dtype(), torch.is_grad_enabled()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        np.seterr(**errstate)
        torch.set_default_dtype(dtype)
        torch.set_grad_enabled(grad)


def in_thread(fn: Callable[[], Any], release: Callable[[], None], wait: float = 0.5) -> dict[str, Any]:
    """Run ``fn`` in a thread for ``wait`` seconds; if it has not returned, call ``release`` (free the lock it waits
    for) and join it. Returns whether it returned within ``wait`` and its outcome."""
    box: dict[str, Any] = {}

    def run() -> None:
        box["outcome"] = outcome(fn)

    th = threading.Thread(target=run, name="r56-repro-call", daemon=True)
    th.start()
    th.join(wait)
    blocked = th.is_alive()
    if blocked:
        release()
        th.join(5.0)
    assert not th.is_alive(), "a reproduction thread could not be ended"
    return {"returned within 0.5 s": not blocked, "call": box.get("outcome") if not blocked else "(blocked)"}


# --------------------------------------------------------------------------- cases (smallest inputs)

I32 = torch.int32
I64 = torch.int64


def _t(vals: Any, dtype: str = "torch.int32") -> tuple[Any, ...]:
    """The snap of a small tensor: ("tensor", dtype, shape, values)."""
    arr = np.array(vals)
    return ("tensor", dtype, arr.shape, vals)


def _raises(exc: str, start: str = "") -> Callable[[Any], bool]:
    return lambda o: raised(o, exc) and o[2].startswith(start)


def _ptrs(*ts: Any) -> torch.Tensor:
    return torch.tensor([t.gpu.data_ptr() for t in ts], dtype=torch.uint64)


def _strides(*ts: Any) -> torch.Tensor:
    return torch.tensor([t.gpu.stride(0) for t in ts], dtype=I64)


def _b01(t):
    s = t.buffer_utils.StagedWriteTensor(4, I32, "cpu")
    s.stage_write_elem(3, 7)
    s.stage_write_elem(2, 6)
    s.apply_write()
    return s.gpu


def _b01_repeat(t):
    s = t.buffer_utils.StagedWriteTensor(3, I32, "cpu")
    s.stage_write_elem(0, 5)
    s.stage_write_elem(0, 8)
    s.stage_write_elem(2, 9)
    s.apply_write()
    return s.gpu


def _b02(t):
    s = t.buffer_utils.StagedWriteTensor((1, 2), I32, "cpu")
    staged = outcome(lambda: s.stage_write(0, 0, [5, True]))
    s.apply_write()
    return {"stage_write": staged, ".gpu": s.gpu}


def _b03(t):
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(1, I32, "cpu"), bu.StagedWriteTensor(1, I32, "cpu")
    a.stage_write_elem(0, 2**31)
    b.stage_write_elem(0, 7)
    w = bu.FusedStagedWriter("cpu", 2)
    p, s = _ptrs(a, b), _strides(a, b)
    first = outcome(lambda: w.apply([a, b], p, s))
    return {"apply": first, "a.gpu": a.gpu.clone(), "b.gpu": b.gpu.clone()}


def _b03_again(t):
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(1, I32, "cpu"), bu.StagedWriteTensor(1, I32, "cpu")
    a.stage_write_elem(0, 2**31)
    b.stage_write_elem(0, 7)
    w = bu.FusedStagedWriter("cpu", 2)
    p, s = _ptrs(a, b), _strides(a, b)
    outcome(lambda: w.apply([a, b], p, s))
    return {"second apply": outcome(lambda: w.apply([a, b], p, s))}


def _b04(t):
    return t.buffer_utils.UvaBufferPool(1, I32).copy_to_uva(torch.tensor([1, 2], dtype=I32))


def _b05(t):
    p = t.buffer_utils.UvaBufferPool(2, I32)
    a = p.copy_to_uva([1, 1])
    r = p.copy_to_gpu([2, 2])
    return {"a": a, "copy_to_gpu": r}


def _b06(t):
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(1, I32, "cpu"), bu.StagedWriteTensor(1, I32, "cpu")
    ts = sorted([a, b], key=lambda x: x.gpu.data_ptr(), reverse=True)  # decreasing addresses
    order = [x is a for x in ts]
    p, s = _ptrs(*ts), _strides(*ts)
    w = bu.FusedStagedWriter("cpu", 2)
    first = outcome(lambda: w.apply(ts, p, s))
    kept = [x is a for x in ts] == order
    return {"first apply": first, "list order kept": kept}


def _b06_next_step(t):
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(1, I32, "cpu"), bu.StagedWriteTensor(1, I32, "cpu")
    ts = sorted([a, b], key=lambda x: x.gpu.data_ptr(), reverse=True)
    p, s = _ptrs(*ts), _strides(*ts)
    w = bu.FusedStagedWriter("cpu", 2)
    w.apply(ts, p, s)
    a.stage_write_elem(0, 1)
    b.stage_write_elem(0, 2)
    second = outcome(lambda: w.apply(ts, p, s))
    return {"second apply": second, "a.gpu": a.gpu, "b.gpu": b.gpu}


def _b07(t):
    p = t.buffer_utils.UvaBufferPool(2, I32)

    def release() -> None:
        lock = p.__dict__.get("_lock")
        if lock is not None and lock.locked():
            lock.release()

    return in_thread(lambda: p.copy_to_gpu([1, 2]), release)


def _b08(t):
    return t.buffer_utils.UvaBufferPool(1, I32).copy_to_uva(np.arange(65537, dtype=np.int32))


def _b09(t):
    return t.async_tensor_h2d(np.array([1, 2], dtype=object), device="cpu")


def _b10(t):
    base = torch.zeros(2, 3, dtype=I64)
    res = outcome(lambda: t.async_tensor_h2d([[1, 2], [3, 4]], out=base[:, :2]))
    return {"call": res, "base": base}


def _b11(t):
    refused = outcome(lambda: t.async_tensor_h2d([1], device="gpu:0"))

    def release() -> None:
        lock = t.async_tensor_h2d.__globals__.get("_RESOLVE_LOCK")
        if lock is not None and lock.locked():
            lock.release()

    nxt = in_thread(lambda: t.async_tensor_h2d([1], device="cpu"), release)
    return {"refused call": refused, **nxt}


def _b12(t):
    with np.errstate(all="raise"):
        r = t.async_tensor_h2d(np.zeros(40000, dtype=np.int32), device="cpu")
        inside = np.geterr()
    return {"values ok": r.dtype == I32 and tuple(r.shape) == (40000,) and not bool(r.any()), "errstate inside": inside}


def _b13(t):
    s = torch.zeros(4)
    res = outcome(lambda: t.async_tensor_h2d([[1.0, 2.0], [3.0, 4.0]], out=s.as_strided((2, 2), (1, 1))))
    return {"call": res, "storage": s}


def _b14(t):
    before = gc.get_freeze_count()
    outcome(lambda: t.buffer_cls(4, dtype=I32, device="cpu"))
    after = gc.get_freeze_count()
    if after != before and before == 0:  # restore: the bug froze the heap
        gc.unfreeze()
    return {"freeze count unchanged": after == before}


def _b15(t):
    b = t.buffer_cls(2, dtype=I32, device="cpu")
    b.copy_to_gpu()
    b.gpu.fill_(5)  # the host "device" tensor written by the model's own ops
    b.copy_to_cpu()
    return b.cpu


def _b16(t):
    b = t.buffer_cls(2, dtype=I32, device="cpu", with_numpy=None)
    return {".np": b.np}


def _b16_bf16(t):
    b = t.buffer_cls(2, dtype=torch.bfloat16, device="cpu", with_numpy=None)
    return {".np": outcome(lambda: b.np)}


# name -> (input as text, case, expectation on the control's outcome: the reference outcome the docstring states)
CASES: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], bool]]] = {
    "b01_staged_contiguous_run_by_span": (
        "t = StagedWriteTensor(4, torch.int32, 'cpu'); t.stage_write_elem(3, 7); t.stage_write_elem(2, 6); "
        "t.apply_write(); t.gpu",
        _b01,
        lambda o: same(o, ("ok", _t([0, 0, 6, 7]))),
    ),
    "b01_staged_contiguous_run_by_span (repeat beside a gap)": (
        "t = StagedWriteTensor(3, torch.int32, 'cpu'); elem(0, 5); elem(0, 8); elem(2, 9); t.apply_write(); t.gpu",
        _b01_repeat,
        lambda o: same(o, ("ok", _t([8, 0, 9]))),
    ),
    "b02_staged_type_scan_by_numpy_kind": (
        "t = StagedWriteTensor((1, 2), torch.int32, 'cpu'); t.stage_write(0, 0, [5, True]); t.apply_write(); t.gpu",
        _b02,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["stage_write"], "TypeError")
            and o[1]["stage_write"][2] == "x must hold numbers (int or float)"
            and same(o[1][".gpu"], _t([[0, 0]]))
        ),
    ),
    "b03_fused_skips_unconvertible_tensor": (
        "a, b = StagedWriteTensor(1, torch.int32, 'cpu') x2; a.stage_write_elem(0, 2**31); b.stage_write_elem(0, 7); "
        "FusedStagedWriter('cpu', 2).apply([a, b], ptrs, strides); a.gpu, b.gpu",
        _b03,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["apply"], "ValueError")
            and o[1]["apply"][2].startswith("data[0] = 2147483648 is out of range for torch.int32")
            and same(o[1]["a.gpu"], _t([0]))
            and same(o[1]["b.gpu"], _t([0]))
        ),
    ),
    "b03_fused_skips_unconvertible_tensor (apply again)": (
        "the same, then w.apply([a, b], ptrs, strides) again",
        _b03_again,
        lambda o: o[0] == "ok" and raised(o[1]["second apply"], "ValueError"),
    ),
    "b04_pool_grows_on_write_failure": (
        "UvaBufferPool(1, torch.int32).copy_to_uva(torch.tensor([1, 2], dtype=torch.int32))",
        _b04,
        lambda o: same(o, ("ok", _t([1, 2]))),
    ),
    "b05_pool_gpu_copy_on_current_slot": (
        "p = UvaBufferPool(2, torch.int32); a = p.copy_to_uva([1, 1]); p.copy_to_gpu([2, 2]); a",
        _b05,
        lambda o: same(o, ("ok", {"a": _t([1, 1]), "copy_to_gpu": _t([2, 2])})),
    ),
    "b06_fused_sorts_callers_tensors": (
        "ts = [a, b] by decreasing .gpu address; FusedStagedWriter('cpu', 2).apply(ts, ptrs(ts), strides(ts)); ts order?",
        _b06,
        lambda o: same(o, ("ok", {"first apply": ("ok", None), "list order kept": True})),
    ),
    "b06_fused_sorts_callers_tensors (next step)": (
        "the same writer, list and tables; a.stage_write_elem(0, 1); b.stage_write_elem(0, 2); w.apply(ts, P, S)",
        _b06_next_step,
        lambda o: same(o, ("ok", {"second apply": ("ok", None), "a.gpu": _t([1]), "b.gpu": _t([2])})),
    ),
    "b07_pool_lock_reentered": (
        "UvaBufferPool(2, torch.int32).copy_to_gpu([1, 2]) (in a thread, 0.5 s)",
        _b07,
        lambda o: same(o, ("ok", {"returned within 0.5 s": True, "call": ("ok", _t([1, 2]))})),
    ),
    "b08_pool_step_rows_capped": (
        "UvaBufferPool(1, torch.int32).copy_to_uva(np.arange(65537, dtype=np.int32))",
        _b08,
        lambda o: o[0] == "ok" and o[1][:3] == ("tensor", "torch.int32", (65537,)),
    ),
    "b09_object_arrays_as_lists": (
        "async_tensor_h2d(np.array([1, 2], dtype=object), device='cpu')",
        _b09,
        _raises("TypeError", "data has numpy dtype object (kind 'O'); only bool, integer, floating and complex"),
    ),
    "b10_out_with_gaps_refused": (
        "base = torch.zeros(2, 3, dtype=torch.int64); async_tensor_h2d([[1, 2], [3, 4]], out=base[:, :2]); base",
        _b10,
        lambda o: same(
            o,
            (
                "ok",
                {
                    "call": ("ok", _t([[1, 2], [3, 4]], "torch.int64")),
                    "base": _t([[1, 2, 0], [3, 4, 0]], "torch.int64"),
                },
            ),
        ),
    ),
    "b11_resolve_lock_leaked_on_refusal": (
        "async_tensor_h2d([1], device='gpu:0'); then async_tensor_h2d([1], device='cpu') (in a thread, 0.5 s)",
        _b11,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["refused call"], "ValueError")
            and o[1]["refused call"][2] == "device='gpu:0' is not a valid device string"
            and o[1]["returned within 0.5 s"] is True
            and same(o[1]["call"], ("ok", _t([1], "torch.int64")))
        ),
    ),
    "b12_serial_copy_errstate_from_import": (
        "with np.errstate(all='raise'): async_tensor_h2d(np.zeros(40000, dtype=np.int32), device='cpu'); np.geterr()",
        _b12,
        lambda o: same(
            o,
            (
                "ok",
                {
                    "values ok": True,
                    "errstate inside": {"divide": "raise", "over": "raise", "under": "raise", "invalid": "raise"},
                },
            ),
        ),
    ),
    "b13_overlap_check_full_storage_shortcut": (
        "s = torch.zeros(4); async_tensor_h2d([[1., 2.], [3., 4.]], out=s.as_strided((2, 2), (1, 1))); s",
        _b13,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["call"], "ValueError")
            and o[1]["call"][2].startswith("out has internally overlapping memory")
            and same(o[1]["storage"], _t([0.0, 0.0, 0.0, 0.0], "torch.float32"))
        ),
    ),
    "b14_buffer_init_freezes_gc": (
        "before = gc.get_freeze_count(); CpuGpuBuffer(4, dtype=torch.int32, device='cpu'); gc.get_freeze_count() == before",
        _b14,
        lambda o: same(o, ("ok", {"freeze count unchanged": True})),
    ),
    "b15_buffer_copy_to_cpu_elided_after_upload": (
        "b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); b.copy_to_gpu(); b.gpu.fill_(5); b.copy_to_cpu(); b.cpu",
        _b15,
        lambda o: same(o, ("ok", _t([5, 5]))),
    ),
    "b16_buffer_with_numpy_none_auto": (
        "CpuGpuBuffer(2, dtype=torch.int32, device='cpu', with_numpy=None).np",
        _b16,
        _raises("TypeError", "with_numpy must be a bool, got None"),
    ),
    "b16_buffer_with_numpy_none_auto (bfloat16)": (
        "CpuGpuBuffer(2, dtype=torch.bfloat16, device='cpu', with_numpy=None).np",
        _b16_bf16,
        _raises("TypeError", "with_numpy must be a bool, got None"),
    ),
}


OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "repro_output.txt")


def main() -> int:
    assert not torch.cuda.is_available(), "this reproduction is written for a CPU-only host"
    lines: list[str] = []

    def emit(line: str = "") -> None:
        print(line)
        lines.append(line)

    control = importlib.import_module(f"r56.{CONTROL}").target()
    emit(f"control: {control.name}; torch {torch.__version__}, numpy {np.__version__}, CUDA available: False")
    bugs = sorted({name.split(" ")[0] for name in CASES})
    emit(f"{len(bugs)} CPU bugs, {len(CASES)} cases (each must differ from the control)")
    emit("each line: case | status | control's outcome | bug's outcome | input")
    failed: list[str] = []
    differ: set[str] = set()
    threads0 = threading.active_count()
    frozen0 = gc.get_freeze_count()
    for name, (text, case, expect) in CASES.items():
        module = name.split(" ")[0]
        bug = importlib.import_module(f"r56.{module}").target()
        control = importlib.import_module(f"r56.{CONTROL}").target()  # fresh: caches and pools of its own
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
        emit(f"{name} | CPU {status} | control: {short(ref)} | bug: {short(got)} | input: {text}")
        if status != "DIFFER":
            failed.append(f"{name} ({status})")
    emit()
    left = threading.active_count() - threads0
    frozen = gc.get_freeze_count() - frozen0
    emit(
        f"state after the run: numpy errstate {np.geterr()}, grad enabled {torch.is_grad_enabled()}, "
        f"threads left by the cases {left}, objects left frozen {frozen}"
    )
    if failed:
        emit(f"FAILED: {failed}")
    else:
        emit(
            f"{len(differ)} of {len(bugs)} CPU bugs differ from the control on their smallest input "
            f"({len(CASES)} cases); the control gives every reference outcome"
        )
    with open(OUTPUT, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    if failed:
        raise AssertionError(f"repro failed for {failed}")
    assert left == 0 and frozen == 0 and torch.is_grad_enabled(), "a case left process state changed"
    return 0


if __name__ == "__main__":
    sys.exit(main())
