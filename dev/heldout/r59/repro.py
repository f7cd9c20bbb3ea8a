"""Reproductions of round r59 on this (CPU-only) host.

Run from ``dev/heldout``::

    /work/main/.venv/bin/python -m r59.repro

All sixteen bugs are CPU-visible. For each: its smallest input (from the module's docstring) on
a fresh control (``b00_control``, the unmodified reference through the same plumbing) and on a
fresh bug target; asserted: the control's outcome is the reference outcome the docstring states
(``expect``), and the bug's outcome differs from the control's. b01, b02, b03, b04, b05, b09, b10,
b11 and b15 have a second case. No bug hangs; none runs in a child interpreter.
State a case changes is restored: numpy's error state, torch's default dtype, grad mode, inference
mode (b16 switches it off inside a ``torch.inference_mode()`` block, whose own exit puts back the
mode it found; checked) and deterministic-algorithms settings by ``restored()`` around every run.
The run checks at the end that those settings are as it found them. One line per case; the output is printed and written to
``r59/repro_output.txt``.
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

from fractions import Fraction

import numpy as np
import torch

import r59  # noqa: F401  (sets plumbing.ROUND)

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
    """The process-wide settings a case may change (b16) or that ``restored()`` puts back."""
    return {
        "numpy errstate": np.geterr(),
        "default dtype": torch.get_default_dtype(),
        "grad enabled": torch.is_grad_enabled(),
        "inference mode": torch.is_inference_mode_enabled(),
        "deterministic": torch.are_deterministic_algorithms_enabled(),
        "warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
        "fill_uninitialized_memory": torch.utils.deterministic.fill_uninitialized_memory,
    }


@contextlib.contextmanager
def restored():
    """Process-wide state a case may change: numpy's error state, the default dtype, grad mode, inference mode (b16), deterministic
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
    s = t.buffer_utils.StagedWriteTensor((1, 2), I32, "cpu")
    s.stage_write(0, 0, [1, 2])
    s.stage_write(0, 2, [])  # a full row, no new block: an empty write at the row's end
    s.apply_write()
    return s.gpu


def _b01_zero_width(t):
    return t.buffer_utils.StagedWriteTensor((2, 0), I32, "cpu").stage_write(0, 0, [])


def _b02(t):
    s = t.buffer_utils.StagedWriteTensor(1, I32, "cpu")
    s.stage_write_elem(0, 5)
    s.clear_staged_writes()
    s.apply_write()
    return s.gpu


def _b02_zeroed(t):
    s = t.buffer_utils.StagedWriteTensor(1, I32, "cpu")
    s.stage_write_elem(0, 5)
    s.apply_write()
    s.gpu.zero_()
    s.apply_write()
    return s.gpu


def _b03(t):
    return t.buffer_utils.UvaBufferPool([2, 3], I32).copy_to_uva([[1, 2, 3]])


def _b03_float_size(t):
    bu = t.buffer_utils
    bu.UvaBufferPool((2, 3), I32)
    return bu.UvaBufferPool((2.0, 3), I32).copy_to_uva([[1, 2, 3]])


def _fused_inference(t, second_order):
    bu = t.buffer_utils
    with torch.inference_mode():
        a, b = bu.StagedWriteTensor(2, I32, "cpu"), bu.StagedWriteTensor(2, I32, "cpu")
        P, S = _ptrs(a, b), _strides(a, b)
        w = bu.FusedStagedWriter("cpu", 2)
        a.stage_write_elem(0, 1)
        w.apply([a, b], P, S)
        P.copy_(_ptrs(b, a))  # the table rewritten in place (for the order [b, a])
        a.stage_write_elem(1, 5)
        order = [a, b] if second_order == "ab" else [b, a]
        res = outcome(lambda: w.apply(order, P, S))
    return {"second apply": res, "a.gpu": a.gpu.clone(), "writes still staged": len(a._staged_write_indices)}


def _b04(t):
    return _fused_inference(t, "ab")


def _b04_good_table(t):
    return _fused_inference(t, "ba")


def _b05(t):
    s = t.buffer_utils.StagedWriteTensor((2, 0), I32, "cpu")
    staged = outcome(lambda: s.stage_write(0, 0, [5]))
    applied = outcome(s.apply_write)
    again = outcome(s.apply_write)
    return {"stage_write": staged, "apply_write": applied, "apply_write again": again}


def _b05_3d(t):
    s = t.buffer_utils.StagedWriteTensor((2, 3, 0), I32, "cpu")
    staged = outcome(lambda: s.stage_write(1, 0, [5, 6, 7]))
    return {"stage_write": staged, "writes staged": len(s._staged_write_indices)}


def _b06(t):
    p = t.buffer_utils.UvaBufferPool(1, I32, max_concurrency=2)
    a = p.copy_to_uva([1])
    refused = outcome(lambda: p.copy_to_uva([[9]]))
    p.copy_to_uva([2])
    return {"refused step": refused, "a (first step's reader)": a}


def _b07(t):
    s = t.buffer_utils.StagedWriteTensor((1, 2), I32, "cpu")
    s.stage_write(0, 0, [1, 2])
    s.stage_write(0, 1, [9])
    s.stage_write(0, 0, [3, 4])
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
    s = t.buffer_utils.StagedWriteTensor(1, F32, "cpu")
    staged = outcome(lambda: s.stage_write_elem(0, Fraction(1, 2)))
    return {"stage_write_elem(0, Fraction(1, 2))": staged, "writes staged": len(s._staged_write_indices)}


def _b09_later_apply(t):
    s = t.buffer_utils.StagedWriteTensor(1, F32, "cpu")
    outcome(lambda: s.stage_write_elem(0, Fraction(1, 2)))
    outcome(s.apply_write)
    s.stage_write_elem(0, 0.25)
    return {"apply after a good write": outcome(s.apply_write), ".gpu": s.gpu}


def _b10(t):
    s = t.buffer_utils.StagedWriteTensor(2, I32, "cpu")
    r = torch.tensor([5])
    staged = outcome(lambda: s.stage_write(0, 0, r))
    r[0] = 7  # the caller reuses its tensor after staging
    s.apply_write()
    return {"stage_write": staged, ".gpu": s.gpu}


def _b10_bool(t):
    s = t.buffer_utils.StagedWriteTensor(2, I32, "cpu")
    staged = outcome(lambda: s.stage_write(0, 0, torch.tensor([True])))
    s.apply_write()
    return {"stage_write": staged, ".gpu": s.gpu}


def _b11(t):
    bu = t.buffer_utils
    a = bu.StagedWriteTensor((1, 2, 2), I32, "cpu")
    a.stage_write(0, 3, [5])
    res = outcome(lambda: bu.FusedStagedWriter("cpu", 1).apply([a], _ptrs(a), _strides(a)))
    return {"apply": res, "a.gpu": a.gpu}


def _b11_shape_table(t):
    bu = t.buffer_utils
    a = bu.StagedWriteTensor((1, 2, 2), I32, "cpu")
    a.stage_write(0, 3, [5])
    S = torch.tensor([a.gpu.shape[1]], dtype=I64)  # [2]: not the row stride (4)
    res = outcome(lambda: bu.FusedStagedWriter("cpu", 1).apply([a], _ptrs(a), S))
    return {"apply": res, "a.gpu": a.gpu}


def _b12(t):
    return tuple(t.buffer_utils.StagedWriteTensor((0, 4), I32, "cpu").gpu.shape)


def _b13(t):
    return t.buffer_utils.UvaBufferPool((2, 3), I32).copy_to_uva([[7]])


def _b14(t):
    return t.async_tensor_h2d([-(2**53 + 1), 0.5], dtype=I64, device="cpu")


def _b15(t):
    return t.async_tensor_h2d([2**53 + 1, 1.5], dtype=I64, device="cpu")


def _b15_half(t):
    return t.async_tensor_h2d([2**53 + 1, 0.5, -1.5], dtype=I64, device="cpu")


def _b16(t):
    bu = t.buffer_utils
    with torch.inference_mode():
        x = bu.UvaBackedTensor(2, I32)
        on = torch.is_inference_mode_enabled()
    x.np[:] = 1
    return {"inference mode on inside the block after the constructor": on, "copy_to_uva()": outcome(x.copy_to_uva)}


def _ok(vals, dtype="torch.int32"):
    return ("ok", _t(vals, dtype))


# name -> (input as text, case, expectation on the control's outcome: the reference outcome the docstring states)
CASES: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], bool]]] = {
    "b01_staged_empty_write_at_row_end_refused": (
        "t = StagedWriteTensor((1, 2), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2]); t.stage_write(0, 2, []); "
        "t.apply_write(); t.gpu",
        _b01,
        lambda o: same(o, _ok([[1, 2]])),
    ),
    "b01_staged_empty_write_at_row_end_refused (zero-width rows)": (
        "StagedWriteTensor((2, 0), torch.int32, 'cpu').stage_write(0, 0, [])",
        _b01_zero_width,
        lambda o: same(o, ("ok", None)),
    ),
    "b02_staged_clear_lazy_map": (
        "t = StagedWriteTensor(1, torch.int32, 'cpu'); t.stage_write_elem(0, 5); t.clear_staged_writes(); "
        "t.apply_write(); t.gpu",
        _b02,
        lambda o: same(o, _ok([0])),
    ),
    "b02_staged_clear_lazy_map (zeroed after an apply)": (
        "t = StagedWriteTensor(1, torch.int32, 'cpu'); t.stage_write_elem(0, 5); t.apply_write(); t.gpu.zero_(); "
        "t.apply_write(); t.gpu",
        _b02_zeroed,
        lambda o: same(o, _ok([0])),
    ),
    "b03_shape_lru_cache": (
        "UvaBufferPool([2, 3], torch.int32).copy_to_uva([[1, 2, 3]])",
        _b03,
        lambda o: same(o, _ok([[1, 2, 3]])),
    ),
    "b03_shape_lru_cache (float size after an equal int size)": (
        "UvaBufferPool((2, 3), torch.int32); UvaBufferPool((2.0, 3), torch.int32).copy_to_uva([[1, 2, 3]])",
        _b03_float_size,
        _raises("TypeError", "size must be an int or a sequence of ints"),
    ),
    "b04_fused_inference_tables_version_sentinel": (
        "under inference_mode: a, b = StagedWriteTensor(2, torch.int32, 'cpu') x2; P, S = ptrs(a, b), strides(a, b); "
        "w = FusedStagedWriter('cpu', 2); a.stage_write_elem(0, 1); w.apply([a, b], P, S); P.copy_(ptrs(b, a)); "
        "a.stage_write_elem(1, 5); w.apply([a, b], P, S); a.gpu",
        _b04,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["second apply"], "ValueError")
            and o[1]["second apply"][2].startswith("output_ptrs must hold")
            and same(o[1]["a.gpu"], _t([1, 0]))
            and o[1]["writes still staged"] == 1
        ),
    ),
    "b04_fused_inference_tables_version_sentinel (the good order after the rewrite)": (
        "as above, the second apply w.apply([b, a], P, S) (P now describes [b, a])",
        _b04_good_table,
        lambda o: same(o, ("ok", {"second apply": ("ok", None), "a.gpu": _t([1, 5]), "writes still staged": 0})),
    ),
    "b05_staged_row_len_from_stride": (
        "t = StagedWriteTensor((2, 0), torch.int32, 'cpu'); t.stage_write(0, 0, [5]); t.apply_write(); t.apply_write()",
        _b05,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["stage_write"], "IndexError")
            and o[1]["stage_write"][2].startswith("start=0 with 1 values is outside a row of 0 elements")
            and same(o[1]["apply_write"], ("ok", None))
            and same(o[1]["apply_write again"], ("ok", None))
        ),
    ),
    "b05_staged_row_len_from_stride (rows of (3, 0))": (
        "t = StagedWriteTensor((2, 3, 0), torch.int32, 'cpu'); t.stage_write(1, 0, [5, 6, 7])",
        _b05_3d,
        lambda o: (
            o[0] == "ok" and raised(o[1]["stage_write"], "IndexError") and o[1]["writes staged"] == 0
        ),
    ),
    "b06_pool_ring_cycle_before_checks": (
        "p = UvaBufferPool(1, torch.int32, max_concurrency=2); a = p.copy_to_uva([1]); p.copy_to_uva([[9]]) (refused); "
        "p.copy_to_uva([2]); a",
        _b06,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["refused step"], "ValueError")
            and same(o[1]["a (first step's reader)"], _t([1]))
        ),
    ),
    "b07_staged_origin_replaced_in_place": (
        "t = StagedWriteTensor((1, 2), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2]); t.stage_write(0, 1, [9]); "
        "t.stage_write(0, 0, [3, 4]); t.apply_write(); t.gpu",
        _b07,
        lambda o: same(o, _ok([[3, 4]])),
    ),
    "b08_fused_single_tensor_unchecked": (
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
    "b09_staged_values_by_isscalar": (
        "t = StagedWriteTensor(1, torch.float32, 'cpu'); t.stage_write_elem(0, Fraction(1, 2)); len(t._staged_write_indices)",
        _b09,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["stage_write_elem(0, Fraction(1, 2))"], "TypeError")
            and o[1]["writes staged"] == 0
        ),
    ),
    "b09_staged_values_by_isscalar (a later good write)": (
        "t = StagedWriteTensor(1, torch.float32, 'cpu'); t.stage_write_elem(0, Fraction(1, 2)); t.apply_write(); "
        "t.stage_write_elem(0, 0.25); t.apply_write(); t.gpu",
        _b09_later_apply,
        lambda o: same(o, ("ok", {"apply after a good write": ("ok", None), ".gpu": _t([0.25], "torch.float32")})),
    ),
    "b10_staged_values_accept_0d_tensors": (
        "t = StagedWriteTensor(2, torch.int32, 'cpu'); r = torch.tensor([5]); t.stage_write(0, 0, r); r[0] = 7; "
        "t.apply_write(); t.gpu",
        _b10,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["stage_write"], "TypeError")
            and o[1]["stage_write"][2] == "x must hold numbers (int or float)"
            and same(o[1][".gpu"], _t([0, 0]))
        ),
    ),
    "b10_staged_values_accept_0d_tensors (a bool tensor)": (
        "t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write(0, 0, torch.tensor([True])); t.apply_write(); t.gpu",
        _b10_bool,
        lambda o: o[0] == "ok" and raised(o[1]["stage_write"], "TypeError") and same(o[1][".gpu"], _t([0, 0])),
    ),
    "b11_fused_row_stride_as_shape1": (
        "a = StagedWriteTensor((1, 2, 2), torch.int32, 'cpu'); a.stage_write(0, 3, [5]); FusedStagedWriter('cpu', 1)"
        ".apply([a], ptrs(a), strides(a) == [4]); a.gpu",
        _b11,
        lambda o: same(o, ("ok", {"apply": ("ok", None), "a.gpu": _t([[[0, 0], [0, 5]]])})),
    ),
    "b11_fused_row_stride_as_shape1 (a stride table of shape[1])": (
        "as above with the stride table [2] (shape[1], not the row stride 4)",
        _b11_shape_table,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["apply"], "ValueError")
            and o[1]["apply"][2].startswith("output_strides must hold")
            and same(o[1]["a.gpu"], _t([[[0, 0], [0, 0]]]))
        ),
    ),
    "b12_staged_row_len_by_division": (
        "StagedWriteTensor((0, 4), torch.int32, 'cpu').gpu.shape",
        _b12,
        lambda o: same(o, ("ok", (0, 4))),
    ),
    "b13_pool_shape_check_not_precedence": (
        "UvaBufferPool((2, 3), torch.int32).copy_to_uva([[7]])",
        _b13,
        _raises("ValueError", "x has shape (1, 1); a slot holds rows of shape (3,)"),
    ),
    "b14_exact_ints_sign_blind": (
        "async_tensor_h2d([-(2**53 + 1), 0.5], dtype=torch.int64, device='cpu')",
        _b14,
        lambda o: same(o, _ok([-(2**53 + 1), 0], "torch.int64")),
    ),
    "b15_exact_ints_python_round": (
        "async_tensor_h2d([2**53 + 1, 1.5], dtype=torch.int64, device='cpu')",
        _b15,
        lambda o: same(o, _ok([2**53 + 1, 1], "torch.int64")),
    ),
    "b15_exact_ints_python_round (0.5 and -1.5)": (
        "async_tensor_h2d([2**53 + 1, 0.5, -1.5], dtype=torch.int64, device='cpu')",
        _b15_half,
        lambda o: same(o, _ok([2**53 + 1, 0, -1], "torch.int64")),
    ),
    "b16_long_lived_one_context_object": (
        "with torch.inference_mode(): t = UvaBackedTensor(2, torch.int32); on = torch.is_inference_mode_enabled(); "
        "then t.np[:] = 1; t.copy_to_uva()",
        _b16,
        lambda o: same(
            o,
            (
                "ok",
                {
                    "inference mode on inside the block after the constructor": True,
                    "copy_to_uva()": _ok([1, 1]),
                },
            ),
        ),
    ),
}


OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "repro_output.txt")


def main() -> int:
    assert not torch.cuda.is_available(), "this reproduction is written for a CPU-only host"
    lines: list[str] = []

    def emit(line: str = "") -> None:
        print(line)
        lines.append(line)

    control = importlib.import_module(f"r59.{CONTROL}").target()
    emit(f"control: {control.name}; torch {torch.__version__}, numpy {np.__version__}, CUDA available: False")
    bugs = sorted({name.split(" ")[0] for name in CASES})
    emit(f"{len(bugs)} CPU bugs, {len(CASES)} cases (each must differ from the control)")
    emit("each line: case | status | control's outcome | bug's outcome | input")
    failed: list[str] = []
    differ: set[str] = set()
    state0 = process_state()
    for name, (text, case, expect) in CASES.items():
        module = name.split(" ")[0]
        bug = importlib.import_module(f"r59.{module}").target()
        control = importlib.import_module(f"r59.{CONTROL}").target()  # fresh: caches and pools of its own
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
