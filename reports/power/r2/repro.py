"""Direct reproductions: each bug's entry point vs the reference on one concrete input.

Run: cd /work/power/r2 && PYTHONPATH=/work/main /work/main/.venv/bin/python repro.py
Prints one line per bug: BUGGY (observations differ) or NOT BUGGY, with both observations.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3]))  # the kit checkout

import numpy as np
import torch

import h2d_impl
import r2bugs


def obs(fn):
    """Run fn() and describe the outcome (result summary or exception type)."""
    try:
        r = fn()
    except Exception as exc:  # noqa: BLE001
        return f"raises {type(exc).__name__}"
    return r


def summary(t):
    if isinstance(t, torch.Tensor):
        return f"{t.dtype} {tuple(t.shape)} {t.tolist()}"
    return repr(t)


# Each repro takes (f, Buf) where f is the entry point under test (main or CPU variant)
# and Buf the CpuGpuBuffer class, and returns a comparable observation.

def r01(f, Buf):  # nested list with a numpy scalar leaf one level down
    return summary(f([[1], [np.float16(2)]], device="cpu"))

def r02(f, Buf):  # big-endian int32 array
    return summary(f(np.array([1, 2], dtype=">i4"), device="cpu"))

def r03(f, Buf):  # 2**63 as a float into int64
    return obs(lambda: summary(f([2.0**63], device="cpu", dtype=torch.int64)))

def r04(f, Buf):  # int8 -1 into uint8
    return obs(lambda: summary(f(torch.tensor([-1, 5], dtype=torch.int8), device="cpu", dtype=torch.uint8)))

def r05(f, Buf):  # dtype=int32 with a float32 out (same width)
    out = torch.zeros(2, dtype=torch.float32)
    res = obs(lambda: f([1, 2], dtype=torch.int32, out=out))
    return (res if isinstance(res, str) else "returned out", out.tolist())

def r06(f, Buf):  # two calls of the same shape: the first result must not change
    a = f([1, 2, 3], device="cpu")
    b = f([7, 8, 9], device="cpu")
    return (a.tolist(), b.tolist(), a.data_ptr() == b.data_ptr())

def r07(f, Buf):  # bfloat16 tensor into int32
    return obs(lambda: summary(f(torch.tensor([1.0, -2.0], dtype=torch.bfloat16), device="cpu", dtype=torch.int32)))

def r08(f, Buf):  # shape (4,) data into an out of shape (1, 4)
    out = torch.zeros(1, 4, dtype=torch.int64)
    res = obs(lambda: f([1, 2, 3, 4], out=out))
    return (res if isinstance(res, str) else "returned out", out.tolist())

def r09(f, Buf):  # 40 ints then a numpy float16 scalar
    return summary(f([1] * 40 + [np.float16(2)], device="cpu")).split(" ")[0]

def r10(f, Buf):  # int32 max as a float64 array into int32
    return obs(lambda: summary(f(np.array([2147483647.0]), device="cpu", dtype=torch.int32)))

def r11(f, Buf):  # transposed tensor: result must be contiguous
    r = f(torch.arange(6.0).reshape(2, 3).t(), device="cpu")
    return (r.tolist(), r.is_contiguous(), r.stride())

def r12(f, Buf):  # inference-mode out, written inside inference mode
    with torch.inference_mode():
        out = torch.zeros(3)
        res = obs(lambda: f([1.0, 2.0, 3.0], out=out))
        return (res if isinstance(res, str) else "returned out", out.tolist())

def r13(f, Buf):  # float list under default dtype float64
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        return summary(f([0.1], device="cpu"))
    finally:
        torch.set_default_dtype(old)

def r14(f, Buf):  # tensor requiring grad
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    r = f(x, device="cpu")
    return (r.tolist(), r.requires_grad, r.grad_fn is not None)

def r15(f, Buf):  # copy_to_gpu with a float n
    b = Buf(4, dtype=torch.int32, device="cpu")
    b.cpu[:] = torch.tensor([1, 2, 3, 4], dtype=torch.int32)
    res = obs(lambda: b.copy_to_gpu(2.0))
    return (res if isinstance(res, str) else "returned", b.gpu.tolist())

def r16(f, Buf):  # bfloat16 buffer with .np
    return obs(lambda: Buf(4, dtype=torch.bfloat16, device="cpu"))

def r17(f, Buf):  # copy_to_cpu() with n=None
    b = Buf(3, dtype=torch.int64, device="cpu")
    b.gpu[:] = torch.tensor([5, 6, 7])
    r = b.copy_to_cpu()
    return (b.cpu.tolist(), b.np.tolist(), r is b.cpu or r.data_ptr() == b.cpu.data_ptr())

def r18(f, Buf):  # zero-capacity buffer
    res = obs(lambda: Buf(0, 3, dtype=torch.float32, device="cpu"))
    return res if isinstance(res, str) else tuple(res.cpu.shape)


REPROS = {"b%02d" % i: globals()["r%02d" % i] for i in range(1, 19)}


def main() -> int:
    bad = 0
    for modname in r2bugs.MODULES:
        bid = modname.split("_")[0]
        t = importlib.import_module(f"r2bugs.{modname}").target()
        entry = "cpu" if t.cpu_variant is not h2d_impl.async_tensor_h2d_cpu else (
            "buffer" if t.buffer_cls is not h2d_impl.CpuGpuBuffer else "h2d")
        if entry == "cpu":
            ref_f, bug_f = h2d_impl.async_tensor_h2d_cpu, t.cpu_variant
        else:
            ref_f, bug_f = h2d_impl.async_tensor_h2d, t.async_tensor_h2d
        ref = obs(lambda: REPROS[bid](ref_f, h2d_impl.CpuGpuBuffer))
        got = obs(lambda: REPROS[bid](bug_f, t.buffer_cls))
        verdict = "BUGGY" if repr(ref) != repr(got) else "NOT BUGGY"
        bad += verdict != "BUGGY"
        print(f"{verdict:9s} {t.name:38s} [{entry}]\n    ref: {ref}\n    bug: {got}")
    print(f"\n{18 - bad}/18 BUGGY")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
