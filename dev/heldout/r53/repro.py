"""Reproductions of round r53 on this (CPU-only) host.

Run from ``dev/heldout``::

    . /work/main/.venv/bin/activate && python -m r53.repro

All sixteen bugs are CPU-visible. For each: its smallest input (from the module's docstring) on
the control (``b00_control``, the unmodified reference through the same plumbing) and on the
bug; asserted: the control's outcome is the reference outcome the docstring states
(``expect``), and the bug's outcome differs from the control's. Cases that change process-wide
state (b10 thread affinity, b14 gc thresholds, b15 the integer-string limit) restore it after
each run. One line per bug; the output is saved as ``repro_output.txt``.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import importlib
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import r53  # noqa: F401  (sets plumbing.ROUND)

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
    """Process-wide state some cases change: thread affinity, gc thresholds, the int-string limit, warnings."""
    aff, thr, digits = os.sched_getaffinity(0), gc.get_threshold(), sys.get_int_max_str_digits()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        os.sched_setaffinity(0, aff)
        gc.set_threshold(*thr)
        sys.set_int_max_str_digits(digits)


# --------------------------------------------------------------------------- cases (smallest inputs)

I32 = torch.int32


def _ptrs(*ts: Any) -> torch.Tensor:
    return torch.tensor([t.gpu.data_ptr() for t in ts], dtype=torch.uint64)


def _b01(t):
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(2, I32, "cpu"), bu.StagedWriteTensor(2, I32, "cpu")
    w = bu.FusedStagedWriter("cpu", 1)
    ptrs, strides = _ptrs(a), torch.tensor([1])
    first = outcome(lambda: w.apply([a], ptrs, strides))
    b.stage_write_elem(0, 7)
    second = outcome(lambda: w.apply([b], ptrs, strides))
    return {"apply([a])": first, "apply([b]) with a's tables": second, "b.gpu": b.gpu}


def _b02(t):
    b = t.buffer_utils.NonUvaBuffer(4, I32, "cpu")
    full = b.uva()
    b.np[:] = [1, 2, 3, 4]
    b.uva(2)
    return {"full after uva(2)": full}


def _b04(t):
    s = t.buffer_utils.StagedWriteTensor(2, torch.float32, "cpu")
    staged = outcome(lambda: s.stage_write(0, 0, [np.complex64(1)]))
    applied = outcome(s.apply_write)
    return {"stage_write": staged, "apply_write": applied, ".gpu": s.gpu}


def _b07(t):
    a = np.array([1])
    first = outcome(lambda: t.async_tensor_h2d(a, dtype=torch.int8, device="cpu"))
    a[0] = 300
    second = outcome(lambda: t.async_tensor_h2d(a, dtype=torch.int8, device="cpu"))
    return {"first": first, "after a[0] = 300": second}


def _b10(t):
    before = sorted(os.sched_getaffinity(0))
    r = t.async_tensor_h2d(np.arange(32769, dtype=np.int32), device="cpu")
    return {
        "values ok": bool((r == torch.arange(32769, dtype=I32)).all()),
        "affinity kept": sorted(os.sched_getaffinity(0)) == before,
    }


def _b12(t):
    return t.buffer_cls(32769, dtype=I32, device="cpu", with_numpy=False).copy_to_gpu()


def _b12_version(t):
    b = t.buffer_cls(32769, dtype=torch.float32, device="cpu")
    v0 = b.gpu._version
    b.copy_to_gpu()
    return b.gpu._version - v0


def _b13(t):
    b = t.buffer_cls(2, dtype=I32, device="cpu")
    r = b.copy_to_gpu(2)
    r.unsqueeze_(0)
    return {"r is b.gpu": r is b.gpu, "b.gpu.shape": tuple(b.gpu.shape)}


def _b14(t):
    before = gc.get_threshold()
    t.async_tensor_h2d([0] * 4097, device="cpu")
    return {"threshold as found": gc.get_threshold() == before}


def _b15(t):
    res = outcome(lambda: t.async_tensor_h2d([10**5000], device="cpu"))
    return {"call": (res[0], res[1]), "int-string limit": sys.get_int_max_str_digits()}


def _b16(t):
    base = np.arange(3)
    v = base.view()
    v.flags.writeable = False
    r = t.cpu_variant(v, device="cpu")
    base[0] = 9
    return r


def _t(vals: Any, dtype: str = "torch.int32") -> tuple[Any, ...]:
    """The snap of a small tensor: ("tensor", dtype, shape, values)."""
    arr = np.array(vals)
    return ("tensor", dtype, arr.shape, vals)


def _raises(exc: str, start: str = "") -> Callable[[Any], bool]:
    return lambda o: raised(o, exc) and o[2].startswith(start)


# name -> (input as text, case, expectation on the control's outcome: the reference outcome the docstring states)
CASES: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], bool]]] = {
    "b01_fused_checks_skipped_on_cached_tables": (
        "a, b = StagedWriteTensor(2, torch.int32, 'cpu') x2; w = FusedStagedWriter('cpu', 1); w.apply([a], ptrs_a, [1]); "
        "b.stage_write_elem(0, 7); w.apply([b], ptrs_a, [1])",
        _b01,
        lambda o: (
            o[0] == "ok"
            and o[1]["apply([a])"] == ("ok", None)
            and raised(o[1]["apply([b]) with a's tables"], "ValueError")
            and o[1]["apply([b]) with a's tables"][2].startswith("output_ptrs must hold")
            and same(o[1]["b.gpu"], _t([0, 0]))
        ),
    ),
    "b02_nonuva_rows_by_full_copy": (
        "b = NonUvaBuffer(4, torch.int32, 'cpu'); full = b.uva(); b.np[:] = [1, 2, 3, 4]; b.uva(2); full",
        _b02,
        lambda o: same(o, ("ok", {"full after uva(2)": _t([1, 2, 0, 0])})),
    ),
    "b03_pool_dtype_staged_allowlist": (
        "UvaBufferPool(4, torch.bool).copy_to_uva([True, False])",
        lambda t: t.buffer_utils.UvaBufferPool(4, torch.bool).copy_to_uva([True, False]),
        lambda o: same(o, ("ok", _t([True, False], "torch.bool"))),
    ),
    "b04_staged_values_np_number": (
        "t = StagedWriteTensor(2, torch.float32, 'cpu'); t.stage_write(0, 0, [np.complex64(1)]); t.apply_write()",
        _b04,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["stage_write"], "TypeError")
            and o[1]["stage_write"][2] == "x must hold numbers (int or float)"
            and o[1]["apply_write"] == ("ok", None)
            and same(o[1][".gpu"], _t([0.0, 0.0], "torch.float32"))
        ),
    ),
    "b05_pool_tuples_accepted": (
        "UvaBufferPool(2, torch.int32).copy_to_uva((1, 2))",
        lambda t: t.buffer_utils.UvaBufferPool(2, I32).copy_to_uva((1, 2)),
        _raises("TypeError", "x must be a tensor, ndarray or list, got tuple"),
    ),
    "b06_pool_lists_via_asarray": (
        "UvaBufferPool(2, torch.int32).copy_to_uva([2**40])",
        lambda t: t.buffer_utils.UvaBufferPool(2, I32).copy_to_uva([2**40]),
        _raises("OverflowError", "Python integer 1099511627776 out of bounds for int32"),
    ),
    "b07_range_check_memoised_by_version": (
        "a = np.array([1]); async_tensor_h2d(a, dtype=torch.int8, device='cpu'); a[0] = 300; async_tensor_h2d(a, dtype=torch.int8, device='cpu')",
        _b07,
        lambda o: (
            o[0] == "ok"
            and same(o[1]["first"], ("ok", _t([1], "torch.int8")))
            and raised(o[1]["after a[0] = 300"], "ValueError")
            and "out of range for torch.int8" in o[1]["after a[0] = 300"][2]
        ),
    ),
    "b08_cpu_variant_refusal_names_device": (
        "async_tensor_h2d_cpu([1], out=torch.zeros(1, dtype=torch.int64, device='meta'))",
        lambda t: t.cpu_variant([1], out=torch.zeros(1, dtype=torch.int64, device="meta")),
        lambda o: (
            o == ("raise", "ValueError", "the CPU-platform variant only targets host memory, got out.device=meta")
        ),
    ),
    "b09_complex_refused_only_with_imag": (
        "async_tensor_h2d([1+0j], dtype=torch.float32, device='cpu')",
        lambda t: t.async_tensor_h2d([1 + 0j], dtype=torch.float32, device="cpu"),
        _raises("TypeError", "data is complex (torch.complex128) but dtype=torch.float32 is not"),
    ),
    "b10_serial_copy_pins_thread": (
        "async_tensor_h2d(np.arange(32769, dtype=np.int32), device='cpu'); os.sched_getaffinity(0) unchanged?",
        _b10,
        lambda o: same(o, ("ok", {"values ok": True, "affinity kept": True})),
    ),
    "b11_out_dtype_mismatch_valueerror": (
        "async_tensor_h2d([1], dtype=torch.int32, out=torch.zeros(1, dtype=torch.int64))",
        lambda t: t.async_tensor_h2d([1], dtype=I32, out=torch.zeros(1, dtype=torch.int64)),
        _raises("TypeError", "dtype=torch.int32 disagrees with out.dtype=torch.int64"),
    ),
    "b12_buffer_large_copy_through_numpy": (
        "CpuGpuBuffer(32769, dtype=torch.int32, device='cpu', with_numpy=False).copy_to_gpu()",
        _b12,
        lambda o: o[0] == "ok" and o[1][:3] == ("tensor", "torch.int32", (32769,)),
    ),
    "b12_buffer_large_copy_through_numpy (version)": (
        "b = CpuGpuBuffer(32769, dtype=torch.float32, device='cpu'); v0 = b.gpu._version; b.copy_to_gpu(); b.gpu._version - v0",
        _b12_version,
        lambda o: o == ("ok", 1),
    ),
    "b13_buffer_full_rows_return_twin": (
        "b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); r = b.copy_to_gpu(2); r.unsqueeze_(0); (r is b.gpu, b.gpu.shape)",
        _b13,
        lambda o: same(o, ("ok", {"r is b.gpu": False, "b.gpu.shape": (2,)})),
    ),
    "b14_flat_list_gc_threshold_raised": (
        "async_tensor_h2d([0] * 4097, device='cpu'); gc.get_threshold() as found?",
        _b14,
        lambda o: same(o, ("ok", {"threshold as found": True})),
    ),
    "b15_describe_lifts_int_str_limit": (
        "async_tensor_h2d([10**5000], device='cpu'); sys.get_int_max_str_digits()",
        _b15,
        lambda o: same(o, ("ok", {"call": ("raise", "ValueError"), "int-string limit": 4300})),
    ),
    "b16_cpu_variant_readonly_zero_copy": (
        "base = np.arange(3); v = base.view(); v.flags.writeable = False; r = async_tensor_h2d_cpu(v, device='cpu'); base[0] = 9; r",
        _b16,
        lambda o: same(o, ("ok", _t([0, 1, 2], "torch.int64"))),
    ),
}


def main() -> int:
    assert not torch.cuda.is_available(), "this reproduction is written for a CPU-only host"
    assert len(os.sched_getaffinity(0)) > 1, "b10 needs a host of two or more cores"
    control = importlib.import_module(f"r53.{CONTROL}").target()
    print(f"control: {control.name}; torch {torch.__version__}, numpy {np.__version__}, CUDA available: False")
    bugs = sorted({name.split(" ")[0] for name in CASES})
    print(f"{len(bugs)} CPU bugs, {len(CASES)} cases (each must differ from the control)")
    print("each line: case | status | control's outcome | bug's outcome | input")
    failed: list[str] = []
    differ: set[str] = set()
    for name, (text, case, expect) in CASES.items():
        module = name.split(" ")[0]
        bug = importlib.import_module(f"r53.{module}").target()
        control = importlib.import_module(f"r53.{CONTROL}").target()  # fresh: memos and pools of its own
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
        print(f"{name} | CPU {status} | control: {short(ref)} | bug: {short(got)} | input: {text}")
        if status != "DIFFER":
            failed.append(f"{name} ({status})")
    print()
    if failed:
        print(f"FAILED: {failed}")
        raise AssertionError(f"repro failed for {failed}")
    print(
        f"{len(differ)} of {len(bugs)} CPU bugs differ from the control on their smallest input "
        f"({len(CASES)} cases); the control gives every reference outcome"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
