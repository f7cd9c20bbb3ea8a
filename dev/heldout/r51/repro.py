"""Reproductions of round r51 on this (CPU-only) host.

Run from ``dev/heldout``::

    . /work/main/.venv/bin/activate && python -m r51.repro

Every bug of the round is CPU-visible (18: 6 host preparation, 5 CpuGpuBuffer, 7 Model Runner V2). For each: its smallest input (from the module's
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
from fractions import Fraction
from typing import Any

import numpy as np
import torch

import r51  # noqa: F401  (sets plumbing.ROUND)

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


def _b11(t):
    b = t.buffer_cls(2, dtype=torch.int32, device="cpu")
    b.np[:] = 7
    r = b.copy_to_gpu(0)
    return {"r": r, "r is .gpu": r is b.gpu, ".gpu": b.gpu}


def _b12(t):
    p = t.buffer_utils.UvaBufferPool(2, torch.int32, max_concurrency=1)
    r = p.copy_to_gpu([1, 2])
    p.copy_to_uva([3, 4])
    return {"r after the next call": r}


def _b13(t):
    s = t.buffer_utils.StagedWriteTensor((2, 0), torch.int32, "cpu")
    staged = outcome(lambda: s.stage_write(0, 0, [5]))
    return {"stage_write(0, 0, [5])": staged, "apply_write()": outcome(s.apply_write), ".gpu": s.gpu}


def _b15(t):
    s = t.buffer_utils.StagedWriteTensor(2, torch.int32, "cpu")
    staged = outcome(lambda: s.stage_write(0, 0, [Fraction(1, 2)]))
    s.stage_write_elem(1, 9)
    return {"stage_write(0, 0, [Fraction(1, 2)])": staged, "apply_write()": outcome(s.apply_write), ".gpu": s.gpu}


def _b16(t):
    b = t.buffer_utils.UvaBackedTensor(4, torch.int32)
    b.copy_to_uva(1)
    return b.copy_to_uva(2)


def _b17(t):
    s = t.buffer_utils.StagedWriteTensor((2, 4), torch.int32, "cpu")
    staged = outcome(lambda: s.stage_write(0, 0, 5))
    s.apply_write()
    return {"stage_write(0, 0, 5)": staged, ".gpu after apply": s.gpu}


# name -> (input as text, case, expectation on the control's outcome: the reference outcome the docstring states)
CASES: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], bool]]] = {
    "b01_serial_copy_numpy_same_dtype": (
        "async_tensor_h2d(torch.zeros(32769, dtype=torch.bfloat16), device='cpu')",
        lambda t: t.async_tensor_h2d(torch.zeros(32769, dtype=torch.bfloat16), device="cpu"),
        lambda o: o[0] == "ok" and o[1][:3] == ("tensor", "torch.bfloat16", (32769,)),
    ),
    "b02_complex_into_bool_refused": (
        "async_tensor_h2d([1j, 0j], dtype=torch.bool, device='cpu')",
        lambda t: t.async_tensor_h2d([1j, 0j], dtype=torch.bool, device="cpu"),
        lambda o: same(o, ("ok", ("tensor", "torch.bool", (2,), [True, False]))),
    ),
    "b03_zerotensor_numpy_route": (
        "async_tensor_h2d(torch._efficientzerotensor(32769), device='cpu')",
        lambda t: t.async_tensor_h2d(torch._efficientzerotensor(32769), device="cpu"),
        lambda o: same(o, ("ok", snap(torch.zeros(32769)))),
    ),
    "b04_half_overflow_refused": (
        "async_tensor_h2d([70000.0], dtype=torch.float16, device='cpu')",
        lambda t: t.async_tensor_h2d([70000.0], dtype=torch.float16, device="cpu"),
        lambda o: same(o, ("ok", ("tensor", "torch.float16", (1,), [float("inf")]))),
    ),
    "b05_numpy_scalar_as_tensor": (
        "async_tensor_h2d(np.uint64(2**64 - 1), device='cpu')",
        lambda t: t.async_tensor_h2d(np.uint64(2**64 - 1), device="cpu"),
        lambda o: same(o, ("ok", ("tensor", "torch.uint64", (), 2**64 - 1))),
    ),
    "b06_pieces_flat_view": (
        "async_tensor_h2d(torch.zeros(2, 16385).t(), dtype=torch.float16, device='cpu')",
        lambda t: t.async_tensor_h2d(torch.zeros(2, 16385).t(), dtype=torch.float16, device="cpu"),
        lambda o: same(o, ("ok", snap(torch.zeros(16385, 2, dtype=torch.float16)))),
    ),
    "b07_buffer_device_defaulted": (
        "CpuGpuBuffer(2, dtype=torch.int32, device=None).gpu",
        lambda t: t.buffer_cls(2, dtype=torch.int32, device=None).gpu,
        lambda o: raised(o, "TypeError") and "device" in o[2],
    ),
    "b08_buffer_device_unresolved": (
        "CpuGpuBuffer(2, dtype=torch.int32, device='meta').gpu.device",
        lambda t: str(t.buffer_cls(2, dtype=torch.int32, device="meta").gpu.device),
        lambda o: raised(o, "ValueError") and "device" in o[2],
    ),
    "b09_buffer_no_size_accepted": (
        "CpuGpuBuffer(dtype=torch.int32, device='cpu').cpu",
        lambda t: t.buffer_cls(dtype=torch.int32, device="cpu").cpu,
        lambda o: raised(o, "ValueError") and "size" in o[2],
    ),
    "b10_buffer_np_without_with_numpy": (
        "CpuGpuBuffer(2, dtype=torch.int32, device='cpu', with_numpy=False).np",
        lambda t: t.buffer_cls(2, dtype=torch.int32, device="cpu", with_numpy=False).np,
        lambda o: raised(o, "AttributeError"),
    ),
    "b11_buffer_zero_rows_as_all": (
        "b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); b.np[:] = 7; r = b.copy_to_gpu(0); r, b.gpu",
        _b11,
        lambda o: same(
            o,
            ("ok", {"r": ("tensor", "torch.int32", (0,), []), "r is .gpu": False, ".gpu": ("tensor", "torch.int32", (2,), [0, 0])}),
        ),
    ),
    "b12_pool_gpu_copy_contiguous": (
        "p = UvaBufferPool(2, torch.int32, max_concurrency=1); r = p.copy_to_gpu([1, 2]); p.copy_to_uva([3, 4]); r",
        _b12,
        lambda o: same(o, ("ok", {"r after the next call": ("tensor", "torch.int32", (2,), [1, 2])})),
    ),
    "b13_staged_zero_width_rows": (
        "t = StagedWriteTensor((2, 0), torch.int32, 'cpu'); t.stage_write(0, 0, [5]); t.apply_write()",
        _b13,
        lambda o: o[0] == "ok"
        and raised(o[1]["stage_write(0, 0, [5])"], "IndexError")
        and "start" in o[1]["stage_write(0, 0, [5])"][2]
        and same(o[1]["apply_write()"], ("ok", None)),
    ),
    "b14_shape_int_isinstance": (
        "UvaBufferPool(np.int64(4), torch.int32).copy_to_uva([1, 2])",
        lambda t: t.buffer_utils.UvaBufferPool(np.int64(4), torch.int32).copy_to_uva([1, 2]),
        lambda o: same(o, ("ok", ("tensor", "torch.int32", (2,), [1, 2]))),
    ),
    "b15_staged_values_numbers_real": (
        "t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write(0, 0, [Fraction(1, 2)]); t.stage_write_elem(1, 9); t.apply_write()",
        _b15,
        lambda o: o[0] == "ok"
        and raised(o[1]["stage_write(0, 0, [Fraction(1, 2)])"], "TypeError")
        and same(o[1]["apply_write()"], ("ok", None))
        and same(o[1][".gpu"], ("tensor", "torch.int32", (2,), [0, 9])),
    ),
    "b16_backed_rows_from_view": (
        "t = UvaBackedTensor(4, torch.int32); t.copy_to_uva(1); t.copy_to_uva(2)",
        _b16,
        lambda o: same(o, ("ok", ("tensor", "torch.int32", (2,), [0, 0]))),
    ),
    "b17_staged_bare_number_accepted": (
        "t = StagedWriteTensor((2, 4), torch.int32, 'cpu'); t.stage_write(0, 0, 5); t.apply_write(); t.gpu",
        _b17,
        lambda o: o[0] == "ok"
        and raised(o[1]["stage_write(0, 0, 5)"], "TypeError")
        and same(o[1][".gpu after apply"], ("tensor", "torch.int32", (2, 4), [[0, 0, 0, 0], [0, 0, 0, 0]])),
    ),
    "b18_staged_dtype_typeerror": (
        "StagedWriteTensor(2, torch.float64, 'cpu')",
        lambda t: t.buffer_utils.StagedWriteTensor(2, torch.float64, "cpu").gpu,
        lambda o: raised(o, "ValueError") and "Unsupported dtype" in o[2],
    ),
}
BUGS = list(CASES)


# --------------------------------------------------------------------------- main


def main() -> int:
    assert not torch.cuda.is_available(), "this reproduction is written for a CPU-only host"
    control = importlib.import_module(f"r51.{CONTROL}").target()
    print(f"control: {control.name}; torch {torch.__version__}, numpy {np.__version__}, CUDA available: False")
    print(f"{len(BUGS)} bugs; each line: name | differ | control's outcome | bug's outcome | input")
    failed: list[str] = []
    for name in BUGS:
        bug = importlib.import_module(f"r51.{name}").target()
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
