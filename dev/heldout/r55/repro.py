"""Reproductions of round r55 on this (CPU-only) host.

Run from ``dev/heldout``::

    /work/main/.venv/bin/python -m r55.repro

All sixteen bugs are CPU-visible. For each: its smallest input (from the module's docstring) on
a fresh control (``b00_control``, the unmodified reference through the same plumbing) and on a
fresh bug target; asserted: the control's outcome is the reference outcome the docstring states
(``expect``), and the bug's outcome differs from the control's. State a case changes (b03 the
switch interval; warnings) is restored after each run. One line per case; the output is printed
and written to ``r55/repro_output.txt``.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import importlib
import os
import sys
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import r55  # noqa: F401  (sets plumbing.ROUND)

CONTROL = "b00_control"


# --------------------------------------------------------------------------- outcomes


def snap(x: Any) -> Any:
    """A comparable, printable summary of a value (tensors by dtype, device, shape, strides, flags and bytes)."""
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
    """Lists as tuples, recursively (``snap`` leaves a tensor's values a list, or a tuple when nested in an outcome)."""
    if isinstance(x, (list, tuple)):
        return tuple(norm(v) for v in x)
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items()}
    return x


def same(a: Any, b: Any) -> bool:
    return norm(a) == norm(b)


def raised(o: Any, exc: str) -> bool:
    return o[0] == "raise" and o[1] == exc


def short(o: Any, width: int = 120) -> str:
    s = repr(o)
    return s if len(s) <= width else s[: width - 3] + "..."


@contextlib.contextmanager
def restored():
    """Process-wide state some cases change: the switch interval (b03), warnings; torch's default dtype is checked."""
    interval, default = sys.getswitchinterval(), torch.get_default_dtype()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        sys.setswitchinterval(interval)
        torch.set_default_dtype(default)


# --------------------------------------------------------------------------- cases (smallest inputs)

I32 = torch.int32
I64 = torch.int64


def _b01(t):
    first = outcome(lambda: t.async_tensor_h2d(np.array([1, 2], dtype=np.int32), device="cpu"))
    second = outcome(lambda: t.async_tensor_h2d(np.array([1, 2], dtype=">i4"), device="cpu"))
    return {"native int32": first, "then >i4": second}


def _b03(t):
    before = sys.getswitchinterval()
    r = t.async_tensor_h2d(np.zeros(32769, dtype=np.float32), dtype=torch.float16, device="cpu")
    return {
        "values ok": r.dtype == torch.float16 and bool((r == 0).all()) and tuple(r.shape) == (32769,),
        "switch interval as found": sys.getswitchinterval() == before,
    }


def _b04(t):
    w = torch.zeros(2, requires_grad=True)
    with torch.no_grad():
        res = outcome(lambda: t.async_tensor_h2d([1.0, 2.0], out=w))
    return {"call": res, "w": w}


def _b05(t):
    b = t.buffer_cls(4, dtype=I32, device="cpu")
    r1 = b.copy_to_gpu(2)
    r1.unsqueeze_(0)
    r2 = b.copy_to_gpu(2)
    return {"r2 is r1": r2 is r1, "r2.shape": tuple(r2.shape)}


def _b06(t):
    base = torch.arange(8, dtype=I32)
    res = outcome(lambda: t.async_tensor_h2d(base.numpy()[1:5], out=base[2:6]))
    return {"call": res, "base": base}


def _b08(t):
    z = torch.tensor([1 - 2j])
    return t.async_tensor_h2d(z.conj().imag, dtype=torch.uint16, device="cpu")


def _b08_float8(t):
    z = torch.tensor([1 - 2j])
    return t.async_tensor_h2d(z.conj().imag, dtype=torch.float8_e4m3fn, device="cpu").to(torch.float32)


def _b09(t):
    out = torch.zeros(1, dtype=I64)
    res = outcome(lambda: t.cpu_variant([1], device="meta", out=out))
    return {"call": res, "out": out}


def _b11(t):
    a = np.arange(3)
    t.async_tensor_h2d(a, device="cpu")
    r = weakref.ref(a)
    del a
    gc.collect()
    return {"array freed": r() is None}


def _b12(t):
    return t.async_tensor_h2d([1], torch.int32, "cpu", True)


def _b12_out(t):
    out = torch.zeros(2, dtype=I32)
    res = outcome(lambda: t.async_tensor_h2d([1, 2], torch.int32, "cpu", out))
    return {"call": res, "out": out}


def _b13(t):
    return t.async_tensor_h2d([1j], device="cpu")


def _b14(t):
    z = torch.zeros(1, dtype=torch.complex64)
    res = outcome(lambda: t.async_tensor_h2d([1 + 2j], out=z.conj()))
    return {"call": res, "z": z}


def _b15(t):
    b = t.buffer_cls(2, dtype=I32, device="cpu")
    cpu = b.cpu
    res = outcome(lambda: b.copy_to_gpu(3))
    return {"call": res, "b.cpu is cpu": b.cpu is cpu, "capacity": b.capacity}


def _b15_stale_np(t):
    b = t.buffer_cls(2, dtype=I32, device="cpu")
    held = b.np  # the runner keeps its .np
    outcome(lambda: b.copy_to_gpu(3))
    held[:] = 5
    return b.copy_to_gpu(2)


def _t(vals: Any, dtype: str = "torch.int32") -> tuple[Any, ...]:
    """The snap of a small tensor: ("tensor", dtype, shape, values)."""
    arr = np.array(vals)
    return ("tensor", dtype, arr.shape, vals)


def _raises(exc: str, start: str = "") -> Callable[[Any], bool]:
    return lambda o: raised(o, exc) and o[2].startswith(start)


# name -> (input as text, case, expectation on the control's outcome: the reference outcome the docstring states)
CASES: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], bool]]] = {
    "b01_fast_path_verdict_memo_by_char": (
        "async_tensor_h2d(np.array([1, 2], dtype=np.int32), device='cpu'); async_tensor_h2d(np.array([1, 2], dtype='>i4'), device='cpu')",
        _b01,
        lambda o: same(o, ("ok", {"native int32": ("ok", _t([1, 2])), "then >i4": ("ok", _t([1, 2]))})),
    ),
    "b02_longdouble_narrowed_to_float64": (
        "async_tensor_h2d(np.array([1.0], dtype=np.longdouble), device='cpu')",
        lambda t: t.async_tensor_h2d(np.array([1.0], dtype=np.longdouble), device="cpu"),
        _raises("TypeError", "data has numpy dtype float128, which torch cannot represent"),
    ),
    "b03_pieces_raise_switch_interval": (
        "async_tensor_h2d(np.zeros(32769, dtype=np.float32), dtype=torch.float16, device='cpu'); sys.getswitchinterval() as found?",
        _b03,
        lambda o: same(o, ("ok", {"values ok": True, "switch interval as found": True})),
    ),
    "b04_out_grad_refusal_only_with_grad_mode": (
        "w = torch.zeros(2, requires_grad=True); with torch.no_grad(): async_tensor_h2d([1.0, 2.0], out=w)",
        _b04,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["call"], "ValueError")
            and o[1]["call"][2].startswith("out requires grad")
            and same(o[1]["w"], _t([0.0, 0.0], "torch.float32"))
        ),
    ),
    "b05_buffer_row_views_memoised": (
        "b = CpuGpuBuffer(4, dtype=torch.int32, device='cpu'); r1 = b.copy_to_gpu(2); r1.unsqueeze_(0); r2 = b.copy_to_gpu(2); (r2 is r1, r2.shape)",
        _b05,
        lambda o: same(o, ("ok", {"r2 is r1": False, "r2.shape": (2,)})),
    ),
    "b06_overlap_skipped_across_storages": (
        "base = torch.arange(8, dtype=torch.int32); async_tensor_h2d(base.numpy()[1:5], out=base[2:6]); base",
        _b06,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["call"], "ValueError")
            and o[1]["call"][2].startswith("out shares memory with data")
            and same(o[1]["base"], _t(list(range(8))))
        ),
    ),
    "b07_huge_uint_guard_excludes_zero": (
        "async_tensor_h2d([0, 2**63], dtype=torch.uint64, device='cpu')",
        lambda t: t.async_tensor_h2d([0, 2**63], dtype=torch.uint64, device="cpu"),
        lambda o: same(o, ("ok", _t([0, 2**63], "torch.uint64"))),
    ),
    "b08_lazy_bits_resolved_for_named_dtypes": (
        "z = torch.tensor([1 - 2j]); async_tensor_h2d(z.conj().imag, dtype=torch.uint16, device='cpu')",
        _b08,
        lambda o: same(o, ("ok", _t([2], "torch.uint16"))),
    ),
    "b08_lazy_bits_resolved_for_named_dtypes (float8)": (
        "z = torch.tensor([1 - 2j]); async_tensor_h2d(z.conj().imag, dtype=torch.float8_e4m3fn, device='cpu')",
        _b08_float8,
        lambda o: same(o, ("ok", _t([2.0], "torch.float32"))),
    ),
    "b09_cpu_variant_device_ignored_with_out": (
        "out = torch.zeros(1, dtype=torch.int64); async_tensor_h2d_cpu([1], device='meta', out=out); out",
        _b09,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["call"], "ValueError")
            and o[1]["call"][2].startswith("device=meta is not supported")
            and same(o[1]["out"], _t([0], "torch.int64"))
        ),
    ),
    "b10_tensor_accepted_as_device": (
        "async_tensor_h2d([1], device=torch.zeros(1))",
        lambda t: t.async_tensor_h2d([1], device=torch.zeros(1)),
        _raises("TypeError", "device must be a torch.device, str or int, got tensor([0.])"),
    ),
    "b11_array_views_memo_keeps_arrays_alive": (
        "a = np.arange(3); async_tensor_h2d(a, device='cpu'); r = weakref.ref(a); del a; gc.collect(); r() is None",
        _b11,
        lambda o: same(o, ("ok", {"array freed": True})),
    ),
    "b12_legacy_dtype_first_order_sniffed": (
        "async_tensor_h2d([1], torch.int32, 'cpu', True)",
        _b12,
        _raises("TypeError", "dtype must be a torch.dtype or None, got 'cpu'"),
    ),
    "b12_legacy_dtype_first_order_sniffed (out dropped)": (
        "out = torch.zeros(2, dtype=torch.int32); async_tensor_h2d([1, 2], torch.int32, 'cpu', out); out",
        _b12_out,
        lambda o: o[0] == "ok" and raised(o[1]["call"], "TypeError") and same(o[1]["out"], _t([0, 0])),
    ),
    "b13_complex_lists_inferred_complex128": (
        "async_tensor_h2d([1j], device='cpu')",
        _b13,
        lambda o: same(o, ("ok", _t([1j], "torch.complex64"))),
    ),
    "b14_lazy_bit_out_refused": (
        "z = torch.zeros(1, dtype=torch.complex64); async_tensor_h2d([1+2j], out=z.conj()); z",
        _b14,
        lambda o: same(
            o, ("ok", {"call": ("ok", _t([1 + 2j], "torch.complex64")), "z": _t([1 - 2j], "torch.complex64")})
        ),
    ),
    "b15_buffer_grows_past_capacity": (
        "b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); cpu = b.cpu; b.copy_to_gpu(3); (b.cpu is cpu, b.capacity)",
        _b15,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["call"], "IndexError")
            and o[1]["call"][2].startswith("n=3 is outside [0, 2]")
            and o[1]["b.cpu is cpu"] is True
            and o[1]["capacity"] == 2
        ),
    ),
    "b15_buffer_grows_past_capacity (held .np)": (
        "b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); held = b.np; b.copy_to_gpu(3) (refused or grown); held[:] = 5; b.copy_to_gpu(2)",
        _b15_stale_np,
        lambda o: same(o, ("ok", _t([5, 5]))),
    ),
    "b16_cpu_variant_swallows_keywords": (
        "async_tensor_h2d_cpu([1], device='cpu', dtpye=torch.int32)",
        lambda t: t.cpu_variant([1], device="cpu", dtpye=torch.int32),
        _raises("TypeError", "async_tensor_h2d_cpu() got an unexpected keyword argument 'dtpye'"),
    ),
}


OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "repro_output.txt")


def main() -> int:
    assert not torch.cuda.is_available(), "this reproduction is written for a CPU-only host"
    lines: list[str] = []

    def emit(line: str = "") -> None:
        print(line)
        lines.append(line)

    control = importlib.import_module(f"r55.{CONTROL}").target()
    emit(f"control: {control.name}; torch {torch.__version__}, numpy {np.__version__}, CUDA available: False")
    bugs = sorted({name.split(" ")[0] for name in CASES})
    emit(f"{len(bugs)} CPU bugs, {len(CASES)} cases (each must differ from the control)")
    emit("each line: case | status | control's outcome | bug's outcome | input")
    failed: list[str] = []
    differ: set[str] = set()
    for name, (text, case, expect) in CASES.items():
        module = name.split(" ")[0]
        bug = importlib.import_module(f"r55.{module}").target()
        control = importlib.import_module(f"r55.{CONTROL}").target()  # fresh: memos and pools of its own
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
