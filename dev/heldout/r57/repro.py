"""Reproductions of round r57 on this (CPU-only) host.

Run from ``dev/heldout``::

    /work/main/.venv/bin/python -m r57.repro

All sixteen bugs are CPU-visible. For each: its smallest input (from the module's docstring) on
a fresh control (``b00_control``, the unmodified reference through the same plumbing) and on a
fresh bug target; asserted: the control's outcome is the reference outcome the docstring states
(``expect``), and the bug's outcome differs from the control's. b07, b09 and b14 have a second case.
State a case changes is restored: numpy's error state, torch's default dtype, grad mode and
deterministic-algorithms settings (mode, ``warn_only``, the filling of uninitialised memory: b05, b16)
by ``restored()`` around every run, and the ``atexit`` handlers b13's buffers register are unregistered
by the case once it has seen the buffer outlive its last reference (then the buffer is freed, checked).
The run checks at the end that those settings are as the run found them. One line per case; the
output is printed and written to ``r57/repro_output.txt``.
"""

from __future__ import annotations

import atexit
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

import r57  # noqa: F401  (sets plumbing.ROUND)

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
    """The process-wide settings a case may change (b05, b16) or that ``restored()`` puts back."""
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
    """Process-wide state a case may change: numpy's error state, the default dtype, grad mode, deterministic
    algorithms (mode, ``warn_only``: b05, b16), the filling of uninitialised memory, warnings."""
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
    a, b = bu.StagedWriteTensor(1, I32, "cpu"), bu.StagedWriteTensor(1, I32, "cpu")
    w = bu.FusedStagedWriter("cpu", 2)
    first = outcome(lambda: w.apply([a, b], _ptrs(a, b), _strides(a, b)))
    a.stage_write_elem(0, 5)
    b.stage_write_elem(0, 6)
    second = outcome(lambda: w.apply([a, b], _ptrs(a, b), _strides(a, b)))  # tables built anew (same values)
    return {"first apply": first, "second apply (new tables)": second, "a.gpu": a.gpu, "b.gpu": b.gpu}


def _b02(t):
    p = t.buffer_utils.UvaBufferPool(1, I32)  # default depth 2
    p.copy_to_uva([1])
    p.copy_to_uva([2])
    c = p.copy_to_uva([1])
    p.copy_to_uva([3])  # one call after c was returned
    return c


def _b03(t):
    bt = t.buffer_utils.UvaBackedTensor(2, I32)
    bt.np[:] = 1
    bt.copy_to_uva()
    bt.np[:] = 2
    ret = bt.copy_to_uva(1)
    return {"copy_to_uva(1)": ret, "returns .gpu": ret is bt.gpu}


def _b04(t):
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(1, I32, "cpu"), bu.StagedWriteTensor(1, I32, "cpu")
    a.stage_write_elem(0, 1)
    b.stage_write_elem(0, 2)
    bu.FusedStagedWriter("cpu", 2).apply([a, b], _ptrs(a, b), _strides(a, b))
    return {"a.gpu": a.gpu, "b.gpu": b.gpu}


def _b05(t):
    torch.use_deterministic_algorithms(True, warn_only=True)
    s = t.buffer_utils.StagedWriteTensor(2, I32, "cpu")
    s.stage_write_elem(0, 7)
    s.apply_write()
    return {".gpu": s.gpu, "warn_only after": torch.is_deterministic_algorithms_warn_only_enabled()}


def _b06(t):
    p = t.buffer_utils.UvaBufferPool(2, I32, max_concurrency=1)
    with torch.inference_mode():
        p.copy_to_uva([1, 2])
    return p.copy_to_uva([3, 4])


def _b07(t):
    return t.async_tensor_h2d(torch.tensor([[1], [2]]).expand(2, 3), device="cpu")


def _b07_numpy(t):
    return t.cpu_variant(np.broadcast_to(np.arange(3), (2, 3)), device="cpu")


def _b08(t):
    x = torch.arange(12, dtype=I32)
    res = outcome(lambda: t.async_tensor_h2d(x[:9].view(3, 3)[:, ::2], out=x[3:].view(3, 3)[:, ::2]))
    return {"call": res, "x": x.tolist()}


def _b09(t):
    return t.async_tensor_h2d(["1", "2"], dtype=I32, device="cpu")


def _b09_range(t):
    return t.async_tensor_h2d([2**40], dtype=I32, device="cpu")


def _b10(t):
    o = torch.tensor([0.0, 1.0])
    v = o._version
    t.async_tensor_h2d([-0.0, 1.0], out=o)
    return {"signbit": torch.signbit(o), "version advanced by": o._version - v}


def _b11(t):
    return t.async_tensor_h2d(np.array([200], dtype=np.uint8), dtype=torch.int8, device="cpu")


def _b12(t):
    data = [torch.tensor([0.1, 0.2], dtype=torch.float64), torch.tensor([0.3, 0.4], dtype=torch.float64)]
    return t.async_tensor_h2d(data, device="cpu")


def _b13(t):
    b = t.buffer_cls(4, dtype=I32, device="cpu")
    w = weakref.ref(b)
    del b
    gc.collect()
    outlived = w() is not None
    if outlived:  # restore: the bug's atexit handler holds the buffer; unregistered, it must be freed
        atexit.unregister(w()._release_at_exit)
        gc.collect()
        assert w() is None, "b13's buffer is still alive after its atexit handler was unregistered"
    return {"buffer freed once dropped": not outlived}


def _b14(t):
    b = t.buffer_cls(4, dtype=I32, device="cpu")
    b.copy_to_gpu(2)
    return b.copy_to_gpu(2.0)


def _b14_bool(t):
    b = t.buffer_cls(4, dtype=I32, device="cpu")
    b.copy_to_gpu(1)
    return b.copy_to_gpu(True)


def _b15(t):
    b = t.buffer_cls(2, dtype=I32, device="cpu")
    b.gpu.fill_(7)  # the host "device" tensor written by the model's own ops
    r = b.copy_to_cpu()
    del b
    gc.collect()
    c = t.buffer_cls(2, dtype=I32, device="cpu")
    c.np[:] = 3
    return r


def _b16(t):
    torch.use_deterministic_algorithms(True)
    b = t.buffer_cls(2, dtype=I32, device="cpu")
    return {".cpu": b.cpu, ".gpu": b.gpu}


# name -> (input as text, case, expectation on the control's outcome: the reference outcome the docstring states)
CASES: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], bool]]] = {
    "b01_fused_tables_cache_tuple_compare": (
        "a, b = StagedWriteTensor(1, torch.int32, 'cpu') x2; w = FusedStagedWriter('cpu', 2); w.apply([a, b], P, S); "
        "a.stage_write_elem(0, 5); b.stage_write_elem(0, 6); w.apply([a, b], P', S') (tables rebuilt, equal)",
        _b01,
        lambda o: same(
            o,
            (
                "ok",
                {
                    "first apply": ("ok", None),
                    "second apply (new tables)": ("ok", None),
                    "a.gpu": _t([5]),
                    "b.gpu": _t([6]),
                },
            ),
        ),
    ),
    "b02_pool_reuses_slot_holding_same_rows": (
        "p = UvaBufferPool(1, torch.int32); p.copy_to_uva([1]); p.copy_to_uva([2]); c = p.copy_to_uva([1]); "
        "p.copy_to_uva([3]); c",
        _b02,
        lambda o: same(o, ("ok", _t([1]))),
    ),
    "b03_backed_gpu_kept_full_rows": (
        "t = UvaBackedTensor(2, torch.int32); t.np[:] = 1; t.copy_to_uva(); t.np[:] = 2; t.copy_to_uva(1)",
        _b03,
        lambda o: same(o, ("ok", {"copy_to_uva(1)": _t([2]), "returns .gpu": True})),
    ),
    "b04_staged_contents_scratch_per_dtype": (
        "a, b = StagedWriteTensor(1, torch.int32, 'cpu') x2; a.stage_write_elem(0, 1); b.stage_write_elem(0, 2); "
        "FusedStagedWriter('cpu', 2).apply([a, b], P, S); a.gpu, b.gpu",
        _b04,
        lambda o: same(o, ("ok", {"a.gpu": _t([1]), "b.gpu": _t([2])})),
    ),
    "b05_staged_put_restores_determinism_without_warn_only": (
        "torch.use_deterministic_algorithms(True, warn_only=True); t = StagedWriteTensor(2, torch.int32, 'cpu'); "
        "t.stage_write_elem(0, 7); t.apply_write(); t.gpu, torch.is_deterministic_algorithms_warn_only_enabled()",
        _b05,
        lambda o: same(o, ("ok", {".gpu": _t([7, 0]), "warn_only after": True})),
    ),
    "b06_pool_slots_made_on_first_use": (
        "p = UvaBufferPool(2, torch.int32, max_concurrency=1); with torch.inference_mode(): p.copy_to_uva([1, 2]); "
        "then p.copy_to_uva([3, 4])",
        _b06,
        lambda o: same(o, ("ok", _t([3, 4]))),
    ),
    "b07_stage_zero_stride_as_fill": (
        "async_tensor_h2d(torch.tensor([[1], [2]]).expand(2, 3), device='cpu')",
        _b07,
        lambda o: same(o, ("ok", _t([[1, 1, 1], [2, 2, 2]], "torch.int64"))),
    ),
    "b07_stage_zero_stride_as_fill (numpy broadcast, CPU variant)": (
        "async_tensor_h2d_cpu(np.broadcast_to(np.arange(3), (2, 3)), device='cpu')",
        _b07_numpy,
        lambda o: same(o, ("ok", _t([[0, 1, 2], [0, 1, 2]], "torch.int64"))),
    ),
    "b08_overlap_interleave_by_inner_stride": (
        "x = torch.arange(12, dtype=torch.int32); async_tensor_h2d(x[:9].view(3, 3)[:, ::2], out=x[3:].view(3, 3)[:, ::2]); x",
        _b08,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["call"], "ValueError")
            and o[1]["call"][2] == "out shares memory with data; copy data first or pass another out"
            and same(o[1]["x"], list(range(12)))
        ),
    ),
    "b09_lists_built_in_target_dtype": (
        "async_tensor_h2d(['1', '2'], dtype=torch.int32, device='cpu')",
        _b09,
        _raises("TypeError", "data contains elements of kind <U1 (strings, bytes or dates)"),
    ),
    "b09_lists_built_in_target_dtype (int past the dtype)": (
        "async_tensor_h2d([2**40], dtype=torch.int32, device='cpu')",
        _b09_range,
        _raises("ValueError", "data[0] = 1099511627776 is out of range for torch.int32"),
    ),
    "b10_host_out_write_skipped_when_equal": (
        "o = torch.tensor([0.0, 1.0]); v = o._version; async_tensor_h2d([-0.0, 1.0], out=o); torch.signbit(o), o._version - v",
        _b10,
        lambda o: same(o, ("ok", {"signbit": _t([True, False], "torch.bool"), "version advanced by": 1})),
    ),
    "b11_uint8_range_check_skipped_as_mask": (
        "async_tensor_h2d(np.array([200], dtype=np.uint8), dtype=torch.int8, device='cpu')",
        _b11,
        _raises("ValueError", "data[0] = 200 is out of range for torch.int8 [-128, 127]"),
    ),
    "b12_refused_typed_list_dtype_by_kind": (
        "async_tensor_h2d([torch.tensor([0.1, 0.2], dtype=torch.float64), torch.tensor([0.3, 0.4], dtype=torch.float64)], "
        "device='cpu')",
        _b12,
        lambda o: same(o, ("ok", _t([[0.1, 0.2], [0.3, 0.4]], "torch.float64"))),
    ),
    "b13_buffer_atexit_handler_per_buffer": (
        "b = CpuGpuBuffer(4, dtype=torch.int32, device='cpu'); w = weakref.ref(b); del b; gc.collect(); w() is None",
        _b13,
        lambda o: same(o, ("ok", {"buffer freed once dropped": True})),
    ),
    "b14_buffer_rows_memo_by_equality": (
        "b = CpuGpuBuffer(4, dtype=torch.int32, device='cpu'); b.copy_to_gpu(2); b.copy_to_gpu(2.0)",
        _b14,
        _raises("TypeError", "n must be an int or None, got 2.0"),
    ),
    "b14_buffer_rows_memo_by_equality (True after 1)": (
        "b = CpuGpuBuffer(4, dtype=torch.int32, device='cpu'); b.copy_to_gpu(1); b.copy_to_gpu(True)",
        _b14_bool,
        _raises("TypeError", "n must be an int or None, got True"),
    ),
    "b15_buffer_host_memory_recycled_from_dropped": (
        "b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); b.gpu.fill_(7); r = b.copy_to_cpu(); del b; "
        "c = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); c.np[:] = 3; r",
        _b15,
        lambda o: same(o, ("ok", _t([7, 7]))),
    ),
    "b16_buffer_unzeroed_in_deterministic_mode": (
        "torch.use_deterministic_algorithms(True); b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); b.cpu, b.gpu",
        _b16,
        lambda o: same(o, ("ok", {".cpu": _t([0, 0]), ".gpu": _t([0, 0])})),
    ),
}


OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "repro_output.txt")


def main() -> int:
    assert not torch.cuda.is_available(), "this reproduction is written for a CPU-only host"
    lines: list[str] = []

    def emit(line: str = "") -> None:
        print(line)
        lines.append(line)

    control = importlib.import_module(f"r57.{CONTROL}").target()
    emit(f"control: {control.name}; torch {torch.__version__}, numpy {np.__version__}, CUDA available: False")
    bugs = sorted({name.split(" ")[0] for name in CASES})
    emit(f"{len(bugs)} CPU bugs, {len(CASES)} cases (each must differ from the control)")
    emit("each line: case | status | control's outcome | bug's outcome | input")
    failed: list[str] = []
    differ: set[str] = set()
    state0 = process_state()
    for name, (text, case, expect) in CASES.items():
        module = name.split(" ")[0]
        bug = importlib.import_module(f"r57.{module}").target()
        control = importlib.import_module(f"r57.{CONTROL}").target()  # fresh: caches and pools of its own
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
