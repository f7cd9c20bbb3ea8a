"""Reproductions of round r52 on this (CPU-only) host.

Run from ``dev/heldout``::

    . /work/main/.venv/bin/activate && python -m r52.repro

Ten bugs are CPU-visible (b01-b10), six GPU-only (b11-b16). For each CPU bug: its smallest
input (from the module's docstring) on the control (``b00_control``, the unmodified reference
through the same plumbing) and on the bug; asserted: the control's outcome is the reference
outcome the docstring states (``expect``), and the bug's outcome differs from the control's.
For each GPU-only bug: the CPU-host input its docstring names, asserted to give the same
outcome on the bug as on the control (and the stated outcome). One line per bug; the output is
saved as ``repro_output.txt``. ``python -m r52.gpu_check`` runs the GPU-only bugs' CUDA inputs
on a CUDA host.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import r52  # noqa: F401  (sets plumbing.ROUND)

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
def deterministic():
    old = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(old)


# --------------------------------------------------------------------------- cases (smallest inputs)

I32 = torch.int32


def _ptrs(*ts: Any) -> torch.Tensor:
    return torch.tensor([t.gpu.data_ptr() for t in ts], dtype=torch.uint64)


def _b01(t):
    p = t.buffer_utils.UvaBufferPool(1, I32, 2)
    a = p.copy_to_uva([1, 2])
    p.copy_to_uva([3])
    return {"a after the next call": a}


def _b03(t):
    b = t.buffer_utils.NonUvaBuffer(2, I32)
    v = b.uva()
    b.np[:] = 5
    return {"v after b.np[:] = 5": v}


def _b05(t):
    s = t.buffer_utils.StagedWriteTensor((2, 4), I32, "cpu")
    staged = outcome(lambda: s.stage_write(1, 0, np.arange(1, 4, dtype=np.int32)))
    s.apply_write()
    return {"stage_write(1, 0, np.arange(1, 4, dtype=np.int32))": staged, ".gpu": s.gpu}


def _b06(t):
    s = t.buffer_utils.StagedWriteTensor((1, 4), I32, "cpu")
    s.stage_write(0, 0, [1, 2, 3])
    s.stage_write(0, 0, [9])
    s.apply_write()
    return s.gpu


def _b07(t):
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(2, I32, "cpu"), bu.StagedWriteTensor(2, I32, "cpu")
    b.stage_write_elem(1, 7)
    res = outcome(lambda: bu.FusedStagedWriter("cpu", 1).apply([a, b], _ptrs(a, b), torch.tensor([1, 1])))
    return {"apply": res, "a.gpu": a.gpu, "b.gpu": b.gpu}


def _b08(t):
    bu = t.buffer_utils
    s = bu.StagedWriteTensor((2, 3), I32, "cpu")
    s.stage_write_elem(0, 5)
    res = outcome(lambda: bu.FusedStagedWriter("cpu", 1).apply([s], _ptrs(s), torch.tensor([1])))
    return {"apply": res, ".gpu": s.gpu}


def _b10(t):
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(2, I32, "cpu"), bu.StagedWriteTensor(2, I32, "cpu")
    a.stage_write_elem(0, 5)
    b.stage_write_elem(0, 7)
    bu.FusedStagedWriter("cpu", 2).apply([a, b], _ptrs(a, b), torch.tensor([1, 1]))
    return {"a.gpu": a.gpu, "b.gpu": b.gpu}


def _b12(t):
    s = t.buffer_utils.StagedWriteTensor(4, I32, "cpu", uva_instead_of_gpu=True)
    s.stage_write_elem(1, 7)
    s.apply_write()
    return {".gpu": s.gpu, "device": str(s.gpu.device)}


def _b13(t):
    bu = t.buffer_utils
    s = bu.StagedWriteTensor(4, I32, "cpu")
    s.stage_write_elem(1, 7)
    bu.FusedStagedWriter("cpu", 1).apply([s], _ptrs(s), torch.tensor([1]))
    return s.gpu


def _b16(t):
    t.async_tensor_h2d([1], dtype=I32, device="cpu")
    return t.async_tensor_h2d([1.5], device="cpu")


def _t(vals: Any, dtype: str = "torch.int32") -> tuple[Any, ...]:
    """The snap of a small tensor: ("tensor", dtype, shape, values)."""
    arr = np.array(vals)
    return ("tensor", dtype, arr.shape, vals)


# name -> (input as text, case, expectation on the control's outcome: the reference outcome the docstring states)
CPU_CASES: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], bool]]] = {
    "b01_pool_growth_cursor_kept": (
        "p = UvaBufferPool(1, torch.int32, 2); a = p.copy_to_uva([1, 2]); p.copy_to_uva([3]); a",
        _b01,
        lambda o: same(o, ("ok", {"a after the next call": _t([1, 2])})),
    ),
    "b02_pool_growth_in_input_dtype": (
        "UvaBufferPool(1, torch.float32).copy_to_uva(torch.tensor([1, 2]))",
        lambda t: t.buffer_utils.UvaBufferPool(1, torch.float32).copy_to_uva(torch.tensor([1, 2])),
        lambda o: same(o, ("ok", _t([1.0, 2.0], "torch.float32"))),
    ),
    "b03_nonuva_host_twin_aliased": (
        "b = NonUvaBuffer(2, torch.int32); v = b.uva(); b.np[:] = 5; v",
        _b03,
        lambda o: same(o, ("ok", {"v after b.np[:] = 5": _t([0, 0])})),
    ),
    "b04_shape_zero_dims_refused": (
        "UvaBufferPool(0, torch.int32).copy_to_uva([1, 2])",
        lambda t: t.buffer_utils.UvaBufferPool(0, I32).copy_to_uva([1, 2]),
        lambda o: same(o, ("ok", _t([1, 2]))),
    ),
    "b05_staged_values_python_numbers_only": (
        "t = StagedWriteTensor((2, 4), torch.int32, 'cpu'); t.stage_write(1, 0, np.arange(1, 4, dtype=np.int32)); t.apply_write(); t.gpu",
        _b05,
        lambda o: same(
            o,
            (
                "ok",
                {
                    "stage_write(1, 0, np.arange(1, 4, dtype=np.int32))": ("ok", None),
                    ".gpu": _t([[0, 0, 0, 0], [1, 2, 3, 0]]),
                },
            ),
        ),
    ),
    "b06_staged_same_origin_superseded": (
        "t = StagedWriteTensor((1, 4), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2, 3]); t.stage_write(0, 0, [9]); t.apply_write(); t.gpu",
        _b06,
        lambda o: same(o, ("ok", _t([[9, 2, 3, 0]]))),
    ),
    "b07_fused_writes_zipped_with_all_tensors": (
        "a, b = StagedWriteTensor(2, torch.int32, 'cpu') x2; b.stage_write_elem(1, 7); FusedStagedWriter('cpu', 1).apply([a, b], ptrs, strides)",
        _b07,
        lambda o: same(o, ("ok", {"apply": ("ok", None), "a.gpu": _t([0, 0]), "b.gpu": _t([0, 7])})),
    ),
    "b08_fused_stride_refusal_names_ptrs": (
        "t = StagedWriteTensor((2, 3), torch.int32, 'cpu'); t.stage_write_elem(0, 5); FusedStagedWriter('cpu', 1).apply([t], ptrs, torch.tensor([1]))",
        _b08,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["apply"], "ValueError")
            and o[1]["apply"][2].startswith("output_strides must hold")
            and same(o[1][".gpu"], _t([[0, 0, 0], [0, 0, 0]]))
        ),
    ),
    "b09_row_count_negative_valueerror": (
        "UvaBackedTensor(4, torch.int32).copy_to_uva(-1)",
        lambda t: t.buffer_utils.UvaBackedTensor(4, I32).copy_to_uva(-1),
        lambda o: raised(o, "IndexError") and "n=-1" in o[2],
    ),
    "b10_fused_dedupe_across_tensors": (
        "a, b = StagedWriteTensor(2, torch.int32, 'cpu') x2; a.stage_write_elem(0, 5); b.stage_write_elem(0, 7); FusedStagedWriter('cpu', 2).apply([a, b], ptrs, strides)",
        _b10,
        lambda o: same(o, ("ok", {"a.gpu": _t([5, 0]), "b.gpu": _t([7, 0])})),
    ),
}

# GPU-only bugs: the CPU-host input their docstring names, and the outcome both must give here
GPU_CASES: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], bool]]] = {
    "b11_pool_device_tensor_accepted": (
        "UvaBufferPool(4, torch.int32).copy_to_uva(torch.zeros(2, dtype=torch.int32, device='meta'))",
        lambda t: t.buffer_utils.UvaBufferPool(4, I32).copy_to_uva(torch.zeros(2, dtype=I32, device="meta")),
        lambda o: raised(o, "TypeError") and "x must be on the host" in o[2],
    ),
    "b12_staged_uva_gpu_is_pinned_host": (
        "t = StagedWriteTensor(4, torch.int32, 'cpu', uva_instead_of_gpu=True); t.stage_write_elem(1, 7); t.apply_write(); t.gpu",
        _b12,
        lambda o: same(o, ("ok", {".gpu": _t([0, 7, 0, 0]), "device": "cpu"})),
    ),
    "b13_fused_tables_read_non_blocking": (
        "t = StagedWriteTensor(4, torch.int32, 'cpu'); t.stage_write_elem(1, 7); FusedStagedWriter('cpu', 1).apply([t], ptrs, strides); t.gpu",
        _b13,
        lambda o: same(o, ("ok", _t([0, 7, 0, 0]))),
    ),
    "b14_uva_rows_by_narrow": (
        "UvaBuffer(4, torch.int32).uva(5)",
        lambda t: t.buffer_utils.UvaBuffer(4, I32).uva(5),
        lambda o: raised(o, "RuntimeError") and "UVA is not available" in o[2],
    ),
    "b15_uva_buffer_zeroed_on_device": (
        "UvaBuffer(4, torch.int32)",
        lambda t: t.buffer_utils.UvaBuffer(4, I32).cpu,
        lambda o: raised(o, "RuntimeError") and "UVA is not available" in o[2],
    ),
    "b16_chunk_views_by_itemsize": (
        "async_tensor_h2d([1], dtype=torch.int32, device='cpu'); async_tensor_h2d([1.5], device='cpu')",
        _b16,
        lambda o: same(o, ("ok", _t([1.5], "torch.float32"))),
    ),
}


# --------------------------------------------------------------------------- main


def main() -> int:
    assert not torch.cuda.is_available(), "this reproduction is written for a CPU-only host"
    control = importlib.import_module(f"r52.{CONTROL}").target()
    print(f"control: {control.name}; torch {torch.__version__}, numpy {np.__version__}, CUDA available: False")
    print(f"{len(CPU_CASES)} CPU bugs (must differ), {len(GPU_CASES)} GPU-only bugs (must match the control here)")
    print("each line: name | status | control's outcome | bug's outcome | input")
    failed: list[str] = []
    differ_count = match_count = 0
    for kind, cases in (("cpu", CPU_CASES), ("gpu", GPU_CASES)):
        for name, (text, case, expect) in cases.items():
            bug = importlib.import_module(f"r52.{name}").target()
            ref = outcome(lambda case=case: case(control))
            got = outcome(lambda case=case, bug=bug: case(bug))
            if not expect(ref):
                status = "CONTROL-WRONG"
            elif kind == "cpu":
                status = "DIFFER" if not same(ref, got) else "SAME"
            else:
                status = "MATCH" if same(ref, got) else "DIFFERS-ON-CPU"
            differ_count += status == "DIFFER"
            match_count += status == "MATCH"
            print(f"{name} | {kind.upper()} {status} | control: {short(ref)} | bug: {short(got)} | input: {text}")
            if status not in ("DIFFER", "MATCH"):
                failed.append(f"{name} ({status})")
    print()
    if failed:
        print(f"FAILED: {failed}")
        raise AssertionError(f"repro failed for {failed}")
    print(
        f"{differ_count} of {len(CPU_CASES)} CPU bugs differ from the control on their smallest input; "
        f"{match_count} of {len(GPU_CASES)} GPU-only bugs behave as the control on this CPU-only host; "
        "the control gives every reference outcome"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
