"""Reproductions of round r58 on this (CPU-only) host.

Run from ``dev/heldout``::

    /work/main/.venv/bin/python -m r58.repro

All sixteen bugs are CPU-visible. For each: its smallest input (from the module's docstring) on
a fresh control (``b00_control``, the unmodified reference through the same plumbing) and on a
fresh bug target; asserted: the control's outcome is the reference outcome the docstring states
(``expect``), and the bug's outcome differs from the control's. b06, b07 and b15 have a second case.
b12's bug never returns (an endless loop), so its case runs in a child interpreter with a 20 s limit
(control and bug alike); its outcome there is ``TimeoutError``.
State a case changes is restored: numpy's error state, torch's default dtype, grad mode (b11) and
deterministic-algorithms settings by ``restored()`` around every run. The run checks at the end that
those settings are as it found them. One line per case; the output is printed and written to
``r58/repro_output.txt``.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import importlib
import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import r58  # noqa: F401  (sets plumbing.ROUND)

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


def process_state() -> dict[str, Any]:
    """The process-wide settings a case may change (b11) or that ``restored()`` puts back."""
    return {
        "numpy errstate": np.geterr(),
        "default dtype": torch.get_default_dtype(),
        "grad enabled": torch.is_grad_enabled(),
        "deterministic": torch.are_deterministic_algorithms_enabled(),
        "warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
        "fill_uninitialized_memory": torch.utils.deterministic.fill_uninitialized_memory,
    }


@contextlib.contextmanager
def restored():
    """Process-wide state a case may change: numpy's error state, the default dtype, grad mode (b11), deterministic
    algorithms (mode, ``warn_only``), the filling of uninitialised memory, warnings."""
    state = process_state()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        np.seterr(**state["numpy errstate"])
        torch.set_default_dtype(state["default dtype"])
        torch.set_grad_enabled(state["grad enabled"])
        torch.use_deterministic_algorithms(state["deterministic"], warn_only=state["warn_only"])
        torch.utils.deterministic.fill_uninitialized_memory = state["fill_uninitialized_memory"]


# --------------------------------------------------------------------------- cases (smallest inputs)

I32 = torch.int32
I64 = torch.int64
F32 = torch.float32
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # dev/heldout


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
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(2, I32, "cpu"), bu.StagedWriteTensor(2, I32, "cpu")
    a.stage_write_elem(0, 5)
    b.apply_write()
    a.apply_write()
    return {"a.gpu": a.gpu, "b.gpu": b.gpu}


def _b02(t):
    bu = t.buffer_utils
    temperature, top_p, min_p = (bu.UvaBackedTensor(1, F32) for _ in range(3))
    temperature.np[0], top_p.np[0], min_p.np[0] = 0.5, 0.25, 0.125
    temperature.copy_to_uva()
    top_p.copy_to_uva()
    min_p.copy_to_uva()
    return {"temperature.gpu": temperature.gpu, "top_p.gpu": top_p.gpu, "min_p.gpu": min_p.gpu}


def _b03(t):
    s = t.buffer_utils.StagedWriteTensor((1, 2), I32, "cpu")
    s.stage_write(0, 0, [1, 2])
    s.stage_write(0, 0, [3])
    s.apply_write()
    return s.gpu


def _b04(t):
    s = t.buffer_utils.StagedWriteTensor(2, I32, "cpu")
    s.stage_write_elem(1, 5)
    s.stage_write_elem(0, 7)
    s.apply_write()
    return s.gpu


def _b05(t):
    s = t.buffer_utils.StagedWriteTensor((2, 2), I32, "cpu")
    s.stage_write_elem(0, 5)
    s.stage_write_elem(1, 7)
    s.apply_write()
    return s.gpu


def _b06(t):
    p = t.buffer_utils.UvaBufferPool(2, I32, max_concurrency=1)
    a = torch.tensor([1, 2], dtype=I32)
    p.copy_to_uva(a)
    p.copy_to_uva(torch.tensor([3], dtype=I32))
    return {"a (the caller's first step)": a}


def _b06_list(t):
    p = t.buffer_utils.UvaBufferPool(2, I32, max_concurrency=1)
    p.copy_to_uva(torch.tensor([1, 2], dtype=I32))
    return p.copy_to_uva([4])


def _b07(t):
    s = t.buffer_utils.StagedWriteTensor(1, I32, "cpu")
    s.stage_write_elem(0, 5)
    s.apply_write()
    s.stage_write(0, 0, np.array([0]))
    s.apply_write()
    return s.gpu


def _b07_two(t):
    s = t.buffer_utils.StagedWriteTensor((1, 2), I32, "cpu")
    s.stage_write(0, 0, np.array([1, 2]))
    s.apply_write()
    return s.gpu


def _b08(t):
    bu = t.buffer_utils
    a = bu.StagedWriteTensor(1, I32, "cpu")
    a.stage_write_elem(0, 5)
    w = bu.FusedStagedWriter("cpu", 1)
    res = outcome(lambda: w.apply([a], torch.zeros(0, dtype=torch.uint64), torch.zeros(0, dtype=I64)))
    return {"apply": res, "a.gpu": a.gpu, "writes still staged": len(a._staged_write_indices)}


def _b09(t):
    s = t.buffer_utils.StagedWriteTensor(1, I32, "cpu")
    s.stage_write_elem(0, -(2**31))
    s.apply_write()
    return s.gpu


def _b10(t):
    return t.buffer_utils.UvaBufferPool(2, torch.bool).copy_to_uva([True, False])


def _b11(t):
    s = t.buffer_utils.StagedWriteTensor(1, I32, "cpu")
    with torch.no_grad():
        s.stage_write_elem(0, 7)
        s.apply_write()
        grad_after = torch.is_grad_enabled()
    return {".gpu": s.gpu, "grad enabled after apply_write, inside no_grad": grad_after}


_B12_CHILD = """
import sys, torch
import r58, importlib
t = importlib.import_module('r58.' + sys.argv[1]).target()
r = t.buffer_utils.UvaBufferPool(0, torch.int32).copy_to_uva([1])
print(str(r.dtype), r.tolist())
"""


def _b12(t):
    module = t.name.split("-", 1)[1]  # "r58-b12_..." -> "b12_..."
    try:
        done = subprocess.run(
            [sys.executable, "-c", _B12_CHILD, module], cwd=HERE, capture_output=True, text=True, timeout=20
        )
    except subprocess.TimeoutExpired:
        raise TimeoutError("UvaBufferPool(0, torch.int32).copy_to_uva([1]) did not return within 20 s") from None
    if done.returncode:
        raise RuntimeError(done.stderr.strip().splitlines()[-1])
    return done.stdout.strip()


def _b13(t):
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(2, I32, "cpu"), bu.StagedWriteTensor(2, I32, "cpu")
    a.stage_write_elem(0, 1)
    b.stage_write_elem(1, 2)
    bu.FusedStagedWriter("cpu", 2).apply([a, b], _ptrs(a, b), _strides(a, b))
    return {"a.gpu": a.gpu, "b.gpu": b.gpu}


def _b14(t):
    d = torch.zeros(0, 3)
    r = t.async_tensor_h2d(d, device="cpu")
    same_object = r is d
    r.unsqueeze_(0)
    return {"result is data": same_object, "data's shape after r.unsqueeze_(0)": tuple(d.shape)}


def _b15(t):
    return t.async_tensor_h2d([2**63, 1], device="cpu")


def _b15_uint64(t):
    return t.async_tensor_h2d([2**63, 1], dtype=torch.uint64, device="cpu")


def _b16(t):
    return t.async_tensor_h2d([2**63 - 1, 0.5], dtype=I64, device="cpu")


# name -> (input as text, case, expectation on the control's outcome: the reference outcome the docstring states)
CASES: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], bool]]] = {
    "b01_staged_lists_on_class": (
        "a, b = StagedWriteTensor(2, torch.int32, 'cpu') x2; a.stage_write_elem(0, 5); b.apply_write(); a.apply_write(); "
        "a.gpu, b.gpu",
        _b01,
        lambda o: same(o, ("ok", {"a.gpu": _t([5, 0]), "b.gpu": _t([0, 0])})),
    ),
    "b02_backed_pools_shared_by_spec": (
        "t, p, m = UvaBackedTensor(1, torch.float32) x3; t.np[0], p.np[0], m.np[0] = 0.5, 0.25, 0.125; "
        "t.copy_to_uva(); p.copy_to_uva(); m.copy_to_uva(); t.gpu, p.gpu, m.gpu",
        _b02,
        lambda o: same(
            o,
            (
                "ok",
                {
                    "temperature.gpu": _t([0.5], "torch.float32"),
                    "top_p.gpu": _t([0.25], "torch.float32"),
                    "min_p.gpu": _t([0.125], "torch.float32"),
                },
            ),
        ),
    ),
    "b03_staged_last_write_by_counts": (
        "t = StagedWriteTensor((1, 2), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2]); t.stage_write(0, 0, [3]); "
        "t.apply_write(); t.gpu",
        _b03,
        lambda o: same(o, ("ok", _t([[3, 2]]))),
    ),
    "b04_staged_unique_positions_unpaired": (
        "t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write_elem(1, 5); t.stage_write_elem(0, 7); "
        "t.apply_write(); t.gpu",
        _b04,
        lambda o: same(o, ("ok", _t([7, 5]))),
    ),
    "b05_staged_positions_searchsorted_left": (
        "t = StagedWriteTensor((2, 2), torch.int32, 'cpu'); t.stage_write_elem(0, 5); t.stage_write_elem(1, 7); "
        "t.apply_write(); t.gpu",
        _b05,
        lambda o: same(o, ("ok", _t([[5, 0], [7, 0]]))),
    ),
    "b06_pool_adopts_whole_slot_tensor": (
        "p = UvaBufferPool(2, torch.int32, max_concurrency=1); a = torch.tensor([1, 2], dtype=torch.int32); "
        "p.copy_to_uva(a); p.copy_to_uva(torch.tensor([3], dtype=torch.int32)); a",
        _b06,
        lambda o: same(o, ("ok", {"a (the caller's first step)": _t([1, 2])})),
    ),
    "b06_pool_adopts_whole_slot_tensor (a list step next)": (
        "p = UvaBufferPool(2, torch.int32, max_concurrency=1); p.copy_to_uva(torch.tensor([1, 2], dtype=torch.int32)); "
        "p.copy_to_uva([4])",
        _b06_list,
        lambda o: same(o, ("ok", _t([4]))),
    ),
    "b07_staged_empty_test_on_x": (
        "t = StagedWriteTensor(1, torch.int32, 'cpu'); t.stage_write_elem(0, 5); t.apply_write(); "
        "t.stage_write(0, 0, np.array([0])); t.apply_write(); t.gpu",
        _b07,
        lambda o: same(o, ("ok", _t([0]))),
    ),
    "b07_staged_empty_test_on_x (two values)": (
        "t = StagedWriteTensor((1, 2), torch.int32, 'cpu'); t.stage_write(0, 0, np.array([1, 2])); t.apply_write(); t.gpu",
        _b07_two,
        lambda o: same(o, ("ok", _t([[1, 2]]))),
    ),
    "b08_fused_empty_table_returns": (
        "a = StagedWriteTensor(1, torch.int32, 'cpu'); a.stage_write_elem(0, 5); FusedStagedWriter('cpu', 1).apply([a], "
        "torch.zeros(0, dtype=torch.uint64), torch.zeros(0, dtype=torch.int64)); a.gpu, len(a._staged_write_indices)",
        _b08,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["apply"], "ValueError")
            and o[1]["apply"][2].startswith("output_ptrs must hold each tensor's .gpu.data_ptr()")
            and same(o[1]["a.gpu"], _t([0]))
            and o[1]["writes still staged"] == 1
        ),
    ),
    "b09_staged_range_check_by_abs": (
        "t = StagedWriteTensor(1, torch.int32, 'cpu'); t.stage_write_elem(0, -2**31); t.apply_write(); t.gpu",
        _b09,
        lambda o: same(o, ("ok", _t([-(2**31)]))),
    ),
    "b10_nonuva_bool_twin_as_uint8": (
        "UvaBufferPool(2, torch.bool).copy_to_uva([True, False])",
        _b10,
        lambda o: same(o, ("ok", _t([True, False], "torch.bool"))),
    ),
    "b11_staged_apply_grad_reset_to_true": (
        "t = StagedWriteTensor(1, torch.int32, 'cpu'); with torch.no_grad(): t.stage_write_elem(0, 7); t.apply_write(); "
        "torch.is_grad_enabled()",
        _b11,
        lambda o: same(o, ("ok", {".gpu": _t([7]), "grad enabled after apply_write, inside no_grad": False})),
    ),
    "b12_pool_growth_doubles_from_slot": (
        "UvaBufferPool(0, torch.int32).copy_to_uva([1])  (in a child interpreter, 20 s limit)",
        _b12,
        lambda o: same(o, ("ok", "torch.int32 [1]")),
    ),
    "b13_fused_write_loop_variable": (
        "a, b = StagedWriteTensor(2, torch.int32, 'cpu') x2; a.stage_write_elem(0, 1); b.stage_write_elem(1, 2); "
        "FusedStagedWriter('cpu', 2).apply([a, b], P, S); a.gpu, b.gpu",
        _b13,
        lambda o: same(o, ("ok", {"a.gpu": _t([1, 0]), "b.gpu": _t([0, 2])})),
    ),
    "b14_stage_empty_returns_source": (
        "d = torch.zeros(0, 3); r = async_tensor_h2d(d, device='cpu'); r is d; r.unsqueeze_(0); d.shape",
        _b14,
        lambda o: same(o, ("ok", {"result is data": False, "data's shape after r.unsqueeze_(0)": (0, 3)})),
    ),
    "b15_huge_int_float_test_exclusive": (
        "async_tensor_h2d([2**63, 1], device='cpu')",
        _b15,
        _raises("ValueError", "data[0] = "),
    ),
    "b15_huge_int_float_test_exclusive (dtype=torch.uint64)": (
        "async_tensor_h2d([2**63, 1], dtype=torch.uint64, device='cpu')",
        _b15_uint64,
        lambda o: same(o, ("ok", _t([2**63, 1], "torch.uint64"))),
    ),
    "b16_range_check_before_exact_ints": (
        "async_tensor_h2d([2**63 - 1, 0.5], dtype=torch.int64, device='cpu')",
        _b16,
        lambda o: same(o, ("ok", _t([2**63 - 1, 0], "torch.int64"))),
    ),
}


OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "repro_output.txt")


def main() -> int:
    assert not torch.cuda.is_available(), "this reproduction is written for a CPU-only host"
    lines: list[str] = []

    def emit(line: str = "") -> None:
        print(line)
        lines.append(line)

    control = importlib.import_module(f"r58.{CONTROL}").target()
    emit(f"control: {control.name}; torch {torch.__version__}, numpy {np.__version__}, CUDA available: False")
    bugs = sorted({name.split(" ")[0] for name in CASES})
    emit(f"{len(bugs)} CPU bugs, {len(CASES)} cases (each must differ from the control)")
    emit("each line: case | status | control's outcome | bug's outcome | input")
    failed: list[str] = []
    differ: set[str] = set()
    state0 = process_state()
    for name, (text, case, expect) in CASES.items():
        module = name.split(" ")[0]
        bug = importlib.import_module(f"r58.{module}").target()
        control = importlib.import_module(f"r58.{CONTROL}").target()  # fresh: caches and pools of its own
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
    gc.collect()
    state = process_state()
    emit(f"state after the run: {state}; as the run found it: {state == state0}")
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
    assert state == state0, "a case left process state changed"
    return 0


if __name__ == "__main__":
    sys.exit(main())
