"""Direct reproductions: each bug vs the reference h2d_impl on one concrete input.

Each repro(t) runs the input against a contracts.Target and returns an observation
string (value, dtype, shape, contiguity, exception type, state of inputs/out...). A bug is
BUGGY when its observation differs from the reference's.
Run: cd /work/power/r1 && /work/main/.venv/bin/python repro.py
"""
import importlib
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3]))  # the kit checkout
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

import numpy as np
import torch

from contracts.target import load_target

CPU = torch.device("cpu")


def show(x):
    if isinstance(x, torch.Tensor):
        return f"tensor({x.tolist()}, dtype={x.dtype}, shape={tuple(x.shape)}, contiguous={x.is_contiguous()}, stride={x.stride()})"
    return repr(x)


def attempt(f):
    try:
        return "returns " + show(f())
    except Exception as e:  # noqa: BLE001
        return f"raises {type(e).__name__}: {str(e).splitlines()[0][:90]}"


# ---------------------------------------------------------------- main function
def r_b01(t):
    a = np.array([1, 2, 3], dtype=">i4")  # big-endian int32
    r = attempt(lambda: t.async_tensor_h2d(a, device="cpu"))
    return f"{r}; caller's array afterwards {a.tolist()}"


def r_b02(t):
    return attempt(lambda: t.async_tensor_h2d((1, np.float16(2)), device="cpu"))


def r_b03(t):
    return attempt(lambda: t.async_tensor_h2d(np.float16(1.5), device="cpu"))


def r_b04(t):
    return attempt(lambda: t.async_tensor_h2d([2.0 ** 63], device="cpu", dtype=torch.int64))


def r_b05(t):
    return attempt(lambda: t.async_tensor_h2d(np.array([200, 7], dtype=np.uint8), device="cpu", dtype=torch.int8))


def r_b06(t):
    x = torch.arange(6.0).reshape(2, 3).t()  # transposed, unpinned
    return attempt(lambda: t.async_tensor_h2d(x, device="cpu"))


def r_b07(t):
    out = torch.zeros(1, 3, dtype=torch.int64)
    r = attempt(lambda: t.async_tensor_h2d([1, 2, 3], out=out))
    return f"{r}; out afterwards {out.tolist()}"


def r_b08(t):
    base = torch.zeros(8)
    view = base.numpy()[0:4]  # ndarray sharing base's bytes 0..3
    view[:] = [1, 2, 3, 4]
    out = base[2:6]  # overlaps data's bytes 2..3
    r = attempt(lambda: t.async_tensor_h2d(view, out=out))
    return f"{r}; storage afterwards {base.tolist()}"


def r_b09(t):
    return attempt(lambda: t.async_tensor_h2d(torch.tensor([1.5, -2.0], dtype=torch.bfloat16), device="cpu"))


def r_b10(t):
    return attempt(lambda: t.async_tensor_h2d([0.0, 0.5, 2.0], device="cpu", dtype=torch.bool))


# ---------------------------------------------------------------- CPU variant
def r_b11(t):
    out = torch.zeros(3, dtype=torch.float32)
    res = t.cpu_variant([1.0, 2.0, 3.0], out=out)
    return f"result is out: {res is out}; out {out.tolist()}"


def r_b12(t):
    return attempt(lambda: t.cpu_variant([1.5, -2.7], device="cpu", dtype=torch.int32))


def r_b13(t):
    return attempt(lambda: t.cpu_variant([300, 5], device="cpu", dtype=torch.uint8))


def r_b14(t):
    out = torch.zeros(3, 2).t()  # non-contiguous (2, 3) view
    res = t.cpu_variant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], out=out)
    return f"result is out: {res is out}; out {out.tolist()}"


# ---------------------------------------------------------------- CpuGpuBuffer
def r_b15(t):
    def make():
        b = t.buffer_cls(4, dtype=torch.int32, device="cpu", pin_memory=True)
        return b.cpu
    return attempt(make)


def r_b16(t):
    b = t.buffer_cls(5, 3, dtype=torch.int32, device="cpu", pin_memory=False)
    b.np[:] = 1
    r = attempt(lambda: b.copy_to_gpu(10))
    return f"copy_to_gpu(10) on capacity 5: {r}; gpu rows set {int((b.gpu != 0).any(1).sum())}"


def r_b17(t):
    return attempt(lambda: t.buffer_cls(4, dtype=torch.bfloat16, device="cpu", pin_memory=False, with_numpy=True).cpu)


def r_b18(t):
    b = t.buffer_cls(4, 2, dtype=torch.int64, device="cpu", pin_memory=False)
    b.gpu.fill_(9)
    b.np[:] = 1
    r = attempt(lambda: b.copy_to_cpu(0))
    return f"copy_to_cpu(0): {r}; cpu afterwards {b.cpu.tolist()}"


BUGS = [
    "b01_byteswap_inplace", "b02_tuple_typed_leaf", "b03_numpy_scalar_item", "b04_int64_float_edge",
    "b05_unsigned_signed_shortcut", "b06_stage_empty_like", "b07_out_shape_numel", "b08_overlap_check_on_data",
    "b09_tensor_via_numpy", "b10_bool_as_integer", "b11_cpu_out_not_returned", "b12_cpu_stage_source_dtype",
    "b13_cpu_skip_representable", "b14_cpu_out_flat_reshape", "b15_buffer_pin_unconditional",
    "b16_buffer_capacity_numel", "b17_buffer_bf16_numpy_typeerror", "b18_buffer_copy_to_cpu_zero_truthiness",
]


def main():
    ref = load_target("reference")
    n_buggy = 0
    for bid in BUGS:
        bug = importlib.import_module(f"r1bugs.{bid}").target()
        fn = globals()["r_" + bid.split("_")[0]]
        ro, bo = fn(ref), fn(bug)
        verdict = "BUGGY" if ro != bo else "NOT BUGGY"
        n_buggy += verdict == "BUGGY"
        print(f"{bid}: {verdict}\n    reference: {ro}\n    bug:       {bo}")
    print(f"\n{n_buggy}/{len(BUGS)} BUGGY")
    return 0 if n_buggy == len(BUGS) else 1


if __name__ == "__main__":
    sys.exit(main())
