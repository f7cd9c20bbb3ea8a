"""Direct reproductions: each bug's input against the reference and against the bug (device="cpu").

Run: PYTHONPATH=/work/main /work/main/.venv/bin/python /work/power/r3/repro.py
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import torch

import h2d_impl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_bugs import BUGS  # noqa: E402


def show(x):
    if isinstance(x, torch.Tensor):
        return (f"Tensor(shape={tuple(x.shape)}, dtype={x.dtype}, contig={x.is_contiguous()}, "
                f"requires_grad={x.requires_grad}, values={x.detach().tolist()})")
    return repr(x)


def obs(fn):
    """Run fn(); the observation is its result (or the exception type) as a string."""
    try:
        return show(fn())
    except Exception as exc:  # noqa: BLE001
        return f"raises {type(exc).__name__}"


# Each repro takes (h2d, cpu, Buffer) and returns an observation string.
def r_b01(h2d, cpu, B):
    return obs(lambda: h2d(np.flip(np.array([7], np.int32)), device="cpu"))


def r_b02(h2d, cpu, B):
    return obs(lambda: h2d(np.arange(1, 6, dtype=">i4"), device="cpu"))


def r_b03(h2d, cpu, B):
    a = np.arange(1, 6, dtype=">i4")
    before = a.tolist()
    res = obs(lambda: h2d(a, device="cpu"))
    return f"{res}; caller's array {before} -> {a.tolist()}"


def r_b04(h2d, cpu, B):
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        return obs(lambda: h2d([1.5, 0.1], device="cpu").dtype) + " (default dtype float64)"
    finally:
        torch.set_default_dtype(old)


def r_b05(h2d, cpu, B):
    return obs(lambda: h2d([1, np.float16(2)], device="cpu"))


def r_b06(h2d, cpu, B):
    return obs(lambda: h2d([2.0**63], device="cpu", dtype=torch.int64))


def r_b07(h2d, cpu, B):
    return obs(lambda: h2d(np.array([-1, 3], np.int8), device="cpu", dtype=torch.uint8))


def r_b08(h2d, cpu, B):
    out = torch.zeros(1, 3)
    res = obs(lambda: h2d([1.0, 2.0, 3.0], out=out))
    return f"{res}; out={out.tolist()}"


def r_b09(h2d, cpu, B):
    b = torch.arange(10.0)
    res = obs(lambda: h2d(b[0:7:2], out=b[6:10]))  # one element (b[6]) shared
    return f"{res}; buffer={b.tolist()}"


def r_b10(h2d, cpu, B):
    return obs(lambda: h2d([1, 2], device="cpu:0"))


def r_b11(h2d, cpu, B):
    t = torch.arange(6.0).reshape(2, 3).t()
    return obs(lambda: h2d(t, device="cpu"))


def r_b12(h2d, cpu, B):
    x = torch.ones(3, requires_grad=True)
    return obs(lambda: h2d(x, device="cpu"))


def r_b13(h2d, cpu, B):
    return obs(lambda: h2d(np.float32(3.5), device="cpu"))


def r_b14(h2d, cpu, B):
    x = torch.arange(4)
    r = cpu(x, device="cpu")
    x[0] = 99
    return f"{show(r)} after caller set x[0]=99; shares memory={r.data_ptr() == x.data_ptr()}"


def r_b15(h2d, cpu, B):
    out = torch.zeros(3, 2).t()  # shape (2, 3), non-contiguous
    res = obs(lambda: cpu([[1, 2, 3], [4, 5, 6]], out=out) is out)
    return f"returns out: {res}; out={out.tolist()}"


def r_b16(h2d, cpu, B):
    return obs(lambda: cpu([1, 2, 3], device="cpu"))


def r_b17(h2d, cpu, B):
    return obs(lambda: cpu([1.5, 0.1], device="cpu").dtype)


def r_b18(h2d, cpu, B):
    buf = B(4, dtype=torch.int32, device="cpu")
    buf.np[:] = [1, 2, 3, 4]
    res = obs(lambda: buf.copy_to_gpu(4))
    return f"copy_to_gpu(4) on capacity 4: {res}; gpu={buf.gpu.tolist()}"


def r_b19(h2d, cpu, B):
    buf = B(3, dtype=torch.int32, device="cpu")
    buf.gpu.copy_(torch.tensor([5, 6, 7], dtype=torch.int32))
    obs(lambda: buf.copy_to_cpu())
    return f"copy_to_cpu(): cpu={buf.cpu.tolist()} gpu={buf.gpu.tolist()}"


def r_b20(h2d, cpu, B):
    buf = B(3, dtype=torch.float32, device="cpu")
    buf.np[0] = 5.0
    return f".np[0]=5 -> cpu={buf.cpu.tolist()}"


def r_b21(h2d, cpu, B):
    buf = B(4, 3, dtype=torch.float32, device="cpu")
    return f"CpuGpuBuffer(4, 3).copy_to_gpu(5): {obs(lambda: tuple(buf.copy_to_gpu(5).shape))}"


def r_b22(h2d, cpu, B):
    return "CpuGpuBuffer(4, 2, pin_memory=True) .cpu: " + obs(
        lambda: B(4, 2, dtype=torch.float32, device="cpu", pin_memory=True).cpu)


def main() -> int:
    ref = (h2d_impl.async_tensor_h2d, h2d_impl.async_tensor_h2d_cpu, h2d_impl.CpuGpuBuffer)
    n_buggy = 0
    for bid, short, entry, *_ in BUGS:
        t = importlib.import_module(f"r3bugs.{bid}_{short}").target()
        bug = (t.async_tensor_h2d, t.cpu_variant, t.buffer_cls)
        repro = globals()[f"r_{bid}"]
        r, b = repro(*ref), repro(*bug)
        verdict = "BUGGY" if r != b else "SAME"
        n_buggy += r != b
        print(f"{bid}_{short} [{entry}] {verdict}\n    reference: {r}\n    bug:       {b}")
    print(f"{n_buggy}/{len(BUGS)} BUGGY")
    return 0 if n_buggy == len(BUGS) else 1


if __name__ == "__main__":
    sys.exit(main())
