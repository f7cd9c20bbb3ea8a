"""Reproductions of round r50 on this (CPU-only) host.

Run from ``dev/heldout``::

    . /work/main/.venv/bin/activate && python -m r50.repro

Every bug of the round is CPU-visible. For each: its smallest input (from the module's
docstring) on the control (``b00_control``, the unmodified reference through the same
plumbing) and on the bug. Asserted: the control's outcome is the reference outcome the
docstring states (``expect``), and the bug's outcome differs from the control's. One line
per bug; the output is saved as ``repro_output.txt``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import r50  # noqa: F401  (sets plumbing.ROUND)

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
    except Exception as exc:  # every exception is an outcome here
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


def _b05(t):
    out = torch.zeros(32769, dtype=torch.int32)
    v = out._version
    r = t.async_tensor_h2d(np.arange(32769, dtype=np.int32), out=out)
    w = torch.ones(32769, requires_grad=True)
    outf = torch.zeros(32769)
    y = (w * outf).sum()  # saves outf for backward
    t.async_tensor_h2d(np.arange(32769, dtype=np.float32), out=outf)
    return {
        "returns out": r is out,
        "out == data": bool((out == torch.arange(32769, dtype=torch.int32)).all()),
        "out._version advance": out._version - v,
        "backward after the call": outcome(y.backward),
    }


def _b06(t):
    before = np.getbufsize()
    try:
        t.async_tensor_h2d(np.arange(32769, dtype=np.int32), device="cpu")
        return {"np.getbufsize() before": before, "after": np.getbufsize()}
    finally:
        np.setbufsize(before)


def _b07(t):
    with torch.inference_mode():
        out = torch.tensor([77])
    with torch.no_grad():
        call = outcome(lambda: t.async_tensor_h2d([1], out=out))
    return {"call under no_grad": call, "out after": out.tolist()}


def _b08(t):
    with deterministic():
        b = t.buffer_cls(2, dtype=torch.float32, device="cpu")
    return {".cpu": b.cpu, ".gpu": b.gpu}


def _b09(t):
    b = t.buffer_cls(4, dtype=torch.int32, device="cpu")
    b.np[:] = 7
    return {"copy_to_gpu(torch.tensor([3]))": outcome(lambda: b.copy_to_gpu(torch.tensor([3]))), ".gpu": b.gpu}


def _b10(t):
    b = t.buffer_cls(4, dtype=torch.int32, device="cpu")
    b.np[:] = 7
    return {"copy_to_gpu(torch.tensor(2))": outcome(lambda: b.copy_to_gpu(torch.tensor(2))), ".gpu": b.gpu}


def _b14(t):
    s = t.buffer_utils.StagedWriteTensor((2, 4), torch.int32, "cpu")
    staged = outcome(lambda: s.stage_write(2, 0, [1]))
    applied = outcome(s.apply_write)
    return {"stage_write(2, 0, [1])": staged, "apply_write()": applied, ".gpu": s.gpu}


def _b15(t):
    s = t.buffer_utils.StagedWriteTensor((2, 2), torch.int32, "cpu")
    staged = outcome(lambda: s.stage_write(0, 0, [1, 2, 3]))
    s.apply_write()
    return {"stage_write(0, 0, [1, 2, 3])": staged, ".gpu after apply": s.gpu}


def _b16(t):
    s = t.buffer_utils.StagedWriteTensor((2, 2, 2), torch.int32, "cpu")
    s.stage_write_elem(1, 5)
    s.apply_write()
    return s.gpu


def _b19(t):
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(2, torch.int32, "cpu"), bu.StagedWriteTensor(2, torch.int32, "cpu")
    w = bu.FusedStagedWriter("cpu", 2)
    ptrs = torch.tensor([a.gpu.data_ptr(), b.gpu.data_ptr()], dtype=torch.uint64)
    strides = torch.tensor([1, 1])
    w.apply([a, b], ptrs, strides)
    ptrs.copy_(torch.tensor([b.gpu.data_ptr(), a.gpu.data_ptr()], dtype=torch.uint64))  # swapped in place
    a.stage_write_elem(0, 7)
    return {"apply after the in-place swap": outcome(lambda: w.apply([a, b], ptrs, strides)), "a.gpu": a.gpu}


def _b20(t):
    p = t.buffer_utils.UvaBufferPool(4, torch.int32)
    out = torch.zeros(2, dtype=torch.int32)
    r = p.copy_to_gpu([1, 2], out=out)
    return {"r is out": r is out, "r": r, "out": out}


# name -> (input as text, case, expectation on the control's outcome: the reference outcome the docstring states)
CASES: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], bool]]] = {
    "b01_bool_source_iinfo": (
        "async_tensor_h2d([True], dtype=torch.int32, device='cpu')",
        lambda t: t.async_tensor_h2d([True], dtype=torch.int32, device="cpu"),
        lambda o: same(o, ("ok", ("tensor", "torch.int32", (1,), [1]))),
    ),
    "b02_nested_uint64_flattened": (
        "async_tensor_h2d([[0], [2**63]], dtype=torch.uint64, device='cpu')",
        lambda t: t.async_tensor_h2d([[0], [2**63]], dtype=torch.uint64, device="cpu"),
        lambda o: same(o, ("ok", ("tensor", "torch.uint64", (2, 1), [[0], [2**63]]))),
    ),
    "b03_error_index_flattened": (
        "async_tensor_h2d(-1, dtype=torch.uint8, device='cpu')",
        lambda t: t.async_tensor_h2d(-1, dtype=torch.uint8, device="cpu"),
        lambda o: raised(o, "ValueError") and o[2].startswith("data = -1 is out of range"),
    ),
    "b04_fnuz_dtype_misspelt": (
        "async_tensor_h2d([1.0], dtype=torch.float8_e5m2fnuz, device='cpu')",
        lambda t: t.async_tensor_h2d([1.0], dtype=torch.float8_e5m2fnuz, device="cpu"),
        lambda o: same(o, ("ok", ("tensor", "torch.float8_e5m2fnuz", (1,), [1.0]))),
    ),
    "b05_host_out_serial_copy": (
        "out = torch.zeros(32769, dtype=torch.int32); async_tensor_h2d(np.arange(32769, dtype=np.int32), out=out);"
        " out._version advance (and a backward that saved a float32 out)",
        _b05,
        lambda o: o[0] == "ok"
        and o[1]["out._version advance"] == 1
        and o[1]["out == data"]
        and raised(o[1]["backward after the call"], "RuntimeError"),
    ),
    "b06_numpy_bufsize_left": (
        "async_tensor_h2d(np.arange(32769, dtype=np.int32), device='cpu'); np.getbufsize()",
        _b06,
        lambda o: same(o, ("ok", {"np.getbufsize() before": 8192, "after": 8192})),
    ),
    "b07_inference_by_grad_mode": (
        "inference out = torch.tensor([77]); under torch.no_grad(): async_tensor_h2d([1], out=out); out",
        _b07,
        lambda o: o[0] == "ok" and raised(o[1]["call under no_grad"], "ValueError") and same(o[1]["out after"], [77]),
    ),
    "b08_gpu_twin_uninitialised": (
        "under torch.use_deterministic_algorithms(True): CpuGpuBuffer(2, dtype=torch.float32, device='cpu').gpu",
        _b08,
        lambda o: same(
            o, ("ok", {".cpu": ("tensor", "torch.float32", (2,), [0.0, 0.0]), ".gpu": ("tensor", "torch.float32", (2,), [0.0, 0.0])})
        ),
    ),
    "b09_row_count_numel_scalar": (
        "b = CpuGpuBuffer(4, dtype=torch.int32, device='cpu'); b.np[:] = 7; b.copy_to_gpu(torch.tensor([3]))",
        _b09,
        lambda o: o[0] == "ok"
        and raised(o[1]["copy_to_gpu(torch.tensor([3]))"], "TypeError")
        and same(o[1][".gpu"][3], [0, 0, 0, 0]),
    ),
    "b10_row_count_integral_abc": (
        "b = CpuGpuBuffer(4, dtype=torch.int32, device='cpu'); b.np[:] = 7; b.copy_to_gpu(torch.tensor(2))",
        _b10,
        lambda o: o[0] == "ok" and same(o[1]["copy_to_gpu(torch.tensor(2))"], ("ok", ("tensor", "torch.int32", (2,), [7, 7]))),
    ),
    "b11_pin_memory_membership": (
        "CpuGpuBuffer(2, dtype=torch.int32, device='cpu', pin_memory=1).cpu",
        lambda t: t.buffer_cls(2, dtype=torch.int32, device="cpu", pin_memory=1).cpu,
        lambda o: raised(o, "TypeError") and "pin_memory" in o[2],
    ),
    "b12_bool_size_accepted": (
        "CpuGpuBuffer(True, dtype=torch.int32, device='cpu').cpu",
        lambda t: t.buffer_cls(True, dtype=torch.int32, device="cpu").cpu,
        lambda o: raised(o, "TypeError") and "size" in o[2],
    ),
    "b13_numpy_refusal_without_np": (
        "CpuGpuBuffer(2, dtype=torch.bfloat16, device='cpu', with_numpy=False).cpu",
        lambda t: t.buffer_cls(2, dtype=torch.bfloat16, device="cpu", with_numpy=False).cpu,
        lambda o: same(o, ("ok", ("tensor", "torch.bfloat16", (2,), [0.0, 0.0]))),
    ),
    "b14_staged_row_bound_inclusive": (
        "t = StagedWriteTensor((2, 4), torch.int32, 'cpu'); t.stage_write(2, 0, [1]); t.apply_write()",
        _b14,
        lambda o: o[0] == "ok" and raised(o[1]["stage_write(2, 0, [1])"], "IndexError") and "index=2" in o[1]["stage_write(2, 0, [1])"][2],
    ),
    "b15_staged_end_spills_row": (
        "t = StagedWriteTensor((2, 2), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2, 3]); t.apply_write(); t.gpu",
        _b15,
        lambda o: o[0] == "ok"
        and raised(o[1]["stage_write(0, 0, [1, 2, 3])"], "IndexError")
        and same(o[1][".gpu after apply"][3], [[0, 0], [0, 0]]),
    ),
    "b16_staged_row_len_last_dim": (
        "t = StagedWriteTensor((2, 2, 2), torch.int32, 'cpu'); t.stage_write_elem(1, 5); t.apply_write(); t.gpu",
        _b16,
        lambda o: same(o, ("ok", ("tensor", "torch.int32", (2, 2, 2), [[[0, 0], [0, 0]], [[5, 0], [0, 0]]]))),
    ),
    "b17_pool_growth_previous_pow2": (
        "UvaBufferPool(1, torch.int32).copy_to_uva([1, 2, 3])",
        lambda t: t.buffer_utils.UvaBufferPool(1, torch.int32).copy_to_uva([1, 2, 3]),
        lambda o: same(o, ("ok", ("tensor", "torch.int32", (3,), [1, 2, 3]))),
    ),
    "b18_pool_growth_drops_trailing": (
        "UvaBufferPool((1, 2), torch.int32).copy_to_uva([[1, 2], [3, 4]])",
        lambda t: t.buffer_utils.UvaBufferPool((1, 2), torch.int32).copy_to_uva([[1, 2], [3, 4]]),
        lambda o: same(o, ("ok", ("tensor", "torch.int32", (2, 2), [[1, 2], [3, 4]]))),
    ),
    "b19_fused_tables_version_ignored": (
        "fused apply of a, b; ptrs swapped in place by copy_; a.stage_write_elem(0, 7); apply again",
        _b19,
        lambda o: o[0] == "ok"
        and raised(o[1]["apply after the in-place swap"], "ValueError")
        and "output_ptrs" in o[1]["apply after the in-place swap"][2]
        and same(o[1]["a.gpu"][3], [0, 0]),
    ),
    "b20_pool_out_head_returned": (
        "p = UvaBufferPool(4, torch.int32); out = torch.zeros(2, dtype=torch.int32); r = p.copy_to_gpu([1, 2], out=out); r is out",
        _b20,
        lambda o: o[0] == "ok" and o[1]["r is out"] is True and same(o[1]["out"][3], [1, 2]),
    ),
}
BUGS = list(CASES)


# --------------------------------------------------------------------------- main


def main() -> int:
    assert not torch.cuda.is_available(), "this reproduction is written for a CPU-only host"
    control = importlib.import_module(f"r50.{CONTROL}").target()
    print(f"control: {control.name}; torch {torch.__version__}, numpy {np.__version__}, CUDA available: False")
    print(f"{len(BUGS)} bugs; each line: name | differ | control's outcome | bug's outcome | input")
    failed: list[str] = []
    for name in BUGS:
        bug = importlib.import_module(f"r50.{name}").target()
        text, case, expect = CASES[name]
        ref = outcome(lambda: case(control))
        got = outcome(lambda: case(bug))
        ok_ref = expect(ref)
        differ = ref != got
        status = "DIFFER" if differ and ok_ref else ("CONTROL-WRONG" if not ok_ref else "SAME")
        print(f"{name} | {status} | control: {short(ref)} | bug: {short(got)} | input: {text}")
        if status != "DIFFER":
            failed.append(f"{name} ({status})")
    print()
    if failed:
        print(f"FAILED: {failed}")
        raise AssertionError(f"repro failed for {failed}")
    print(f"all {len(BUGS)} bugs differ from the control on their smallest input; the control gives every reference outcome")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
