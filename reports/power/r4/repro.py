"""Direct reproduction of every r4 bug through the public API (CPU only)."""
from __future__ import annotations

import importlib
import warnings

import numpy as np
import torch

from h2d_contracts import h2d_impl as REF
from make_bugs import BUGS

warnings.simplefilter("ignore")


def run(fn):
    """Outcome of fn() as a short comparable string."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001
        return f"raises {type(exc).__name__}"


def t(x):
    """Short description of a result tensor."""
    return f"{x.tolist()} {str(x.dtype).replace('torch.', '')} shape={tuple(x.shape)}"


# -- main (async_tensor_h2d) ---------------------------------------------------

def r_b01(m):
    return run(lambda: t(m.async_tensor_h2d([1.0, 2.0], dtype=torch.float64, out=torch.zeros(2))))


def r_b02(m):
    return run(lambda: t(m.async_tensor_h2d([1, 2, 3], out=torch.zeros(1, 3))))


def r_b03(m):
    return run(lambda: t(m.async_tensor_h2d([1.0, 2.0, 3.0], out=torch.zeros(1).expand(3))))


def r_b04(m):
    b = torch.arange(8.0)
    return run(lambda: t(m.async_tensor_h2d(b[:4], out=b[3:7]))) + f"; buffer after: {b.tolist()}"


def r_b05(m):
    return run(lambda: t(m.async_tensor_h2d([2.0**63], device="cpu", dtype=torch.int64)))


def r_b06(m):
    return run(lambda: t(m.async_tensor_h2d(torch.tensor([-1], dtype=torch.int8), device="cpu", dtype=torch.uint8)))


def r_b07(m):
    return run(lambda: t(m.async_tensor_h2d([-128.0], device="cpu", dtype=torch.int8)))


def r_b08(m):
    return run(lambda: t(m.async_tensor_h2d(np.flip(np.array([7], np.int32)), device="cpu")))


def r_b09(m):
    return run(lambda: t(m.async_tensor_h2d(np.arange(1, 4, dtype=">i4"), device="cpu")))


def r_b10(m):
    a = np.arange(1, 4, dtype=">i4")
    res = run(lambda: t(m.async_tensor_h2d(a, device="cpu")))
    return f"{res}; data after: {a.tolist()}"


def r_b11(m):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    return run(lambda: (lambda r: f"requires_grad={r.requires_grad} grad_fn={type(r.grad_fn).__name__ if r.grad_fn else None}")(
        m.async_tensor_h2d(x, device="cpu")))


def r_b12(m):
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        return run(lambda: t(m.async_tensor_h2d([0.1], device="cpu")))
    finally:
        torch.set_default_dtype(old)


# -- cpu variant (async_tensor_h2d_cpu) ---------------------------------------

def r_b13(m):
    x = torch.arange(4)
    r = m.async_tensor_h2d_cpu(x, device="cpu")
    x[0] = 99
    return f"result after data[0]=99: {r.tolist()} (shares memory: {r.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()})"


def r_b14(m):
    out = torch.zeros(2)
    r = m.async_tensor_h2d_cpu([1.0, 2.0], out=out)
    return f"returns out itself: {r is out}; out={out.tolist()}"


def r_b15(m):
    return run(lambda: t(m.async_tensor_h2d_cpu([1, 2], device="cpu")))


def r_b16(m):
    x = torch.arange(6).reshape(2, 3).t()
    return run(lambda: (lambda r: f"{r.tolist()} contiguous={r.is_contiguous()} stride={r.stride()}")(
        m.async_tensor_h2d_cpu(x, device="cpu")))


# -- CpuGpuBuffer --------------------------------------------------------------

def r_b17(m):
    b = m.CpuGpuBuffer(4, dtype=torch.int32, device="cpu")
    b.np[:] = [1, 2, 3, 4]
    return run(lambda: t(b.copy_to_gpu(4)))


def r_b18(m):
    b = m.CpuGpuBuffer(4, dtype=torch.int32, device="cpu")
    b.np[:] = [1, 2, 3, 4]
    r = b.copy_to_gpu(2)
    return f"returned {t(r)}; gpu after copy_to_gpu(2): {b.gpu.tolist()}"


def r_b19(m):
    b = m.CpuGpuBuffer(4, dtype=torch.int32, device="cpu")
    b.gpu.fill_(5)
    r = b.copy_to_cpu(2)
    return f"returned {t(r)}; cpu after copy_to_cpu(2): {b.cpu.tolist()}; returns a view of .cpu: {r.data_ptr() == b.cpu.data_ptr()}"


def r_b20(m):
    b = m.CpuGpuBuffer(3, dtype=torch.float32, device="cpu")
    b.np[0] = 7.0
    return f"cpu after np[0]=7: {b.cpu.tolist()}"


def r_b21(m):
    return run(lambda: (lambda b: f"built, cpu pinned={b.cpu.is_pinned() if torch.cuda.is_available() else False}")(
        m.CpuGpuBuffer(4, 2, dtype=torch.float32, device="cpu", pin_memory=True)))


def r_b22(m):
    b = m.CpuGpuBuffer(4, dtype=torch.int32, device="cpu")
    b.np[:] = [1, 2, 3, 4]
    res = run(lambda: t(b.copy_to_gpu(-1)))
    return f"{res}; gpu after: {b.gpu.tolist()}"


def main() -> None:
    for bid, short, entry, fname, old, new in BUGS:
        mod = importlib.import_module(f"r4bugs._{bid}")
        fn = globals()[f"r_{bid}"]
        ref, bug = fn(REF), fn(mod)
        if ref != bug:
            print(f"{bid} BUGGY: {ref} vs {bug}    [{short}, {entry}]")
        else:
            print(f"{bid} NOT BUGGY: both {ref}    [{short}, {entry}]")


if __name__ == "__main__":
    main()
