"""Reproductions of round r48 on this (CPU-only) host.

Run from ``dev/heldout``::

    /work/main/.venv/bin/python -m r48.repro

For each CPU-visible bug: its smallest input on the control (``b00_control``) and on the bug,
both outcomes printed, and an assertion that they differ. For each GPU-only bug: a few
relevant public calls on the host for bug and control, asserted to behave the same, and the
GPU input that shows the bug (from the module's docstring).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import threading
from typing import Any, Callable

import numpy as np
import torch

import r48  # noqa: F401  (sets plumbing.ROUND)

CONTROL = "b00_control"

CPU_BUGS = [
    "b01_byteorder_relabelled",
    "b02_ascontiguousarray_trusted",
    "b03_default_float_frozen",
    "b04_width_test_for_range",
    "b05_bounds_in_source_type",
    "b06_numpy_same_kind_cast",
    "b07_detached_in_place",
    "b08_cpu_variant_device_default",
    "b09_np_value_error",
    "b10_pool_slots_one_object",
    "b11_backed_refresh_no_return",
    "b12_staged_positions_absolute",
    "b13_staged_lengths_not_ends",
    "b14_shape_as_list",
]
GPU_BUGS = [
    "b15_small_offset_rounded_down",
    "b16_payload_bytes_of_source",
    "b17_host_index_for_device",
    "b18_uva_np_before_pinning",
    "b19_pool_cap_min_for_max",
    "b20_buffer_copy_from_clone",
    "b21_gather_at_host_offset",
    "b22_permuted_result_cloned",
    "b23_small_lock_narrowed",
    "b24_done_query_uncalled",
]


# --------------------------------------------------------------------------- outcomes


def snap(x: Any) -> Any:
    """A comparable, printable summary of a value (tensors by dtype, device, shape, strides and bytes)."""
    if isinstance(x, torch.Tensor):
        t = x.detach()
        if t.numel() <= 8:
            vals: Any = t.cpu().tolist()
        else:
            raw = t.cpu().contiguous().view(-1)
            vals = "sha1:" + hashlib.sha1(raw.view(torch.uint8).numpy().tobytes()).hexdigest()[:12]
        return (
            "tensor",
            str(t.dtype),
            str(t.device),
            tuple(t.shape),
            t.stride(),
            t.is_contiguous(),
            bool(t.requires_grad),
            vals,
        )
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
        return ("raise", type(exc).__name__, msg[:110])


def short(o: Any, width: int = 150) -> str:
    s = repr(o)
    return s if len(s) <= width else s[: width - 3] + "..."


@contextlib.contextmanager
def default_dtype(dt: torch.dtype):
    old = torch.get_default_dtype()
    torch.set_default_dtype(dt)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


# --------------------------------------------------------------------------- CPU cases (smallest inputs)


def _b03(t):
    with default_dtype(torch.float64):
        return t.async_tensor_h2d([1.5], device="cpu")


def _b07(t):
    x = torch.tensor([1.5], requires_grad=True)
    r = t.async_tensor_h2d(x, device="cpu")
    return {"result": r, "x.requires_grad after": x.requires_grad}


def _b09(t):
    buf = t.buffer_cls(1, dtype=torch.int32, device="cpu", with_numpy=False)
    return {"hasattr(buf, 'np')": outcome(lambda: hasattr(buf, "np")), "buf.np": outcome(lambda: buf.np)}


def _b10(t):
    p = t.buffer_utils.UvaBufferPool(2, torch.int32, 2)
    a = p.copy_to_uva([1, 2])
    p.copy_to_uva([3, 4])
    return {"a (first step's view)": a}


def _b11(t):
    bt = t.buffer_utils.UvaBackedTensor(2, torch.int32)
    bt.np[:] = [1, 2]
    r = bt.copy_to_uva()
    return {"returned": r, "returned is .gpu": r is bt.gpu}


def _staged(t):
    s = t.buffer_utils.StagedWriteTensor((2, 4), torch.int32, "cpu")
    s.stage_write(0, 0, [1, 2])
    s.stage_write(1, 0, [3, 4])
    s.apply_write()
    return s.gpu


CPU_CASES: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "b01_byteorder_relabelled": (
        "async_tensor_h2d(np.array([1], dtype='>i4'), device='cpu')",
        lambda t: t.async_tensor_h2d(np.array([1], dtype=">i4"), device="cpu"),
    ),
    "b02_ascontiguousarray_trusted": (
        "async_tensor_h2d(np.flip(np.array([7])), device='cpu')",
        lambda t: t.async_tensor_h2d(np.flip(np.array([7])), device="cpu"),
    ),
    "b03_default_float_frozen": (
        "with default dtype float64: async_tensor_h2d([1.5], device='cpu')",
        _b03,
    ),
    "b04_width_test_for_range": (
        "async_tensor_h2d([-1], dtype=torch.uint64, device='cpu')",
        lambda t: t.async_tensor_h2d([-1], dtype=torch.uint64, device="cpu"),
    ),
    "b05_bounds_in_source_type": (
        "async_tensor_h2d([1], dtype=torch.uint64, device='cpu')",
        lambda t: t.async_tensor_h2d([1], dtype=torch.uint64, device="cpu"),
    ),
    "b06_numpy_same_kind_cast": (
        "async_tensor_h2d(np.arange(32769, dtype=np.float32), dtype=torch.int32, device='cpu')",
        lambda t: t.async_tensor_h2d(np.arange(32769, dtype=np.float32), dtype=torch.int32, device="cpu"),
    ),
    "b07_detached_in_place": (
        "x = torch.tensor([1.5], requires_grad=True); async_tensor_h2d(x, device='cpu'); x.requires_grad",
        _b07,
    ),
    "b08_cpu_variant_device_default": (
        "async_tensor_h2d_cpu([1])",
        lambda t: t.cpu_variant([1]),
    ),
    "b09_np_value_error": (
        "CpuGpuBuffer(1, dtype=torch.int32, device='cpu', with_numpy=False).np",
        _b09,
    ),
    "b10_pool_slots_one_object": (
        "p = UvaBufferPool(2, torch.int32, 2); a = p.copy_to_uva([1, 2]); p.copy_to_uva([3, 4]); a",
        _b10,
    ),
    "b11_backed_refresh_no_return": (
        "t = UvaBackedTensor(2, torch.int32); t.np[:] = [1, 2]; t.copy_to_uva()",
        _b11,
    ),
    "b12_staged_positions_absolute": (
        "StagedWriteTensor((2, 4), int32, 'cpu'): stage_write(0, 0, [1, 2]); stage_write(1, 0, [3, 4]); apply_write(); .gpu",
        _staged,
    ),
    "b13_staged_lengths_not_ends": (
        "StagedWriteTensor((2, 4), int32, 'cpu'): stage_write(0, 0, [1, 2]); stage_write(1, 0, [3, 4]); apply_write(); .gpu",
        _staged,
    ),
    "b14_shape_as_list": (
        "UvaBufferPool(4, torch.int32).copy_to_uva([1])",
        lambda t: t.buffer_utils.UvaBufferPool(4, torch.int32).copy_to_uva([1]),
    ),
}


# --------------------------------------------------------------------------- host checks of the GPU-only bugs


def _host_h2d_calls(t) -> dict[str, Any]:
    """The public calls whose CUDA half each h2d/staging GPU bug changes, made on the host."""
    calls: dict[str, Callable[[], Any]] = {
        "small list": lambda: t.async_tensor_h2d([1, 2], device="cpu"),
        "two small lists": lambda: [t.async_tensor_h2d([1, 2], device="cpu"), t.async_tensor_h2d([3, 4], device="cpu")],
        "uint8 array -> int64 (200,000)": lambda: t.async_tensor_h2d(
            np.zeros(200_000, np.uint8), device="cpu", dtype=torch.int64
        ),
        "int32 array -> int64 (100)": lambda: t.async_tensor_h2d(
            np.arange(100, dtype=np.int32), device="cpu", dtype=torch.int64
        ),
        "column slice with offset": lambda: t.async_tensor_h2d(
            torch.arange(8, dtype=torch.int32).view(4, 2)[:, 1], device="cpu"
        ),
        "transposed tensor": lambda: t.async_tensor_h2d(torch.arange(6, dtype=torch.int64).view(2, 3).t(), device="cpu"),
        "transposed tensor into out": lambda: t.async_tensor_h2d(
            torch.arange(6, dtype=torch.int64).view(2, 3).t(), out=torch.zeros(3, 2, dtype=torch.int64)
        ),
        "2 MiB arrays back to back": lambda: [
            t.async_tensor_h2d(np.full(1 << 19, 1, np.int32), device="cpu"),
            t.async_tensor_h2d(np.full(1 << 19, 2, np.int32), device="cpu"),
        ],
        "4 MiB array": lambda: t.async_tensor_h2d(np.ones(1 << 20, np.int32), device="cpu"),
        "device='cuda' on this host": lambda: t.async_tensor_h2d([1], device="cuda"),
        "CPU variant, small list": lambda: t.cpu_variant([1, 2], device="cpu"),
        "empty_cache()": lambda: t.empty_cache(),
    }
    res = {k: outcome(v) for k, v in calls.items()}
    res["8 threads x 200 calls"] = outcome(lambda: _threads(t))
    return res


def _threads(t) -> str:
    errors: list[str] = []

    def work(k: int) -> None:
        for i in range(200):
            data = [k * 1000 + i, i, k]
            r = t.async_tensor_h2d(data, device="cpu")
            if r.tolist() != data:
                errors.append(f"thread {k} call {i}: {r.tolist()} != {data}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return "all right" if not errors else f"{len(errors)} wrong: {errors[0]}"


def _host_staged_calls(t) -> dict[str, Any]:
    bu = t.buffer_utils

    def single():
        s = bu.StagedWriteTensor(4, torch.int32, "cpu")
        s.stage_write_elem(1, 7)
        s.apply_write()
        return s.gpu

    def overlapping():
        s = bu.StagedWriteTensor((2, 4), torch.float32, "cpu")
        s.stage_write(0, 0, [1.5, 2.5, 3.5])
        s.stage_write(0, 1, [9.0])
        s.stage_write(1, 3, [4.0])
        s.apply_write()
        return s.gpu

    def fused():
        a = bu.StagedWriteTensor((2, 3), torch.int64, "cpu")
        b = bu.StagedWriteTensor(3, torch.int32, "cpu")
        a.stage_write(1, 0, [5, 6])
        b.stage_write_elem(2, 8)
        w = bu.FusedStagedWriter("cpu", 2)
        ts = [a, b]
        w.apply(
            ts,
            torch.tensor([x.gpu.data_ptr() for x in ts], dtype=torch.uint64),
            torch.tensor([x.gpu.stride(0) for x in ts], dtype=torch.int64),
        )
        return [a.gpu, b.gpu]

    def out_of_range():
        s = bu.StagedWriteTensor(2, torch.int32, "cpu")
        s.stage_write_elem(0, 2**31)
        return outcome(s.apply_write), s.gpu

    return {k: outcome(v) for k, v in {"single": single, "overlapping": overlapping, "fused": fused, "out of range": out_of_range}.items()}


def _host_uva_calls(t) -> dict[str, Any]:
    bu = t.buffer_utils

    def pool():
        p = bu.UvaBufferPool(4, torch.int32, 2)
        return [p.copy_to_uva([5, 6]), p.copy_to_uva(np.array([7, 8, 9], np.int32)), p.copy_to_uva(torch.tensor([1]))]

    def backed():
        b = bu.UvaBackedTensor(3, torch.int32)
        b.np[:] = [1, 2, 3]
        return b.copy_to_uva(2), b.gpu

    def staged_uva():
        s = bu.StagedWriteTensor(3, torch.int32, "cpu", uva_instead_of_gpu=True)
        s.stage_write_elem(0, 4)
        s.apply_write()
        return s.gpu

    return {
        k: outcome(v)
        for k, v in {
            "UvaBuffer(4, int32)": lambda: bu.UvaBuffer(4, torch.int32),
            "pool steps": pool,
            "backed refresh": backed,
            "staged uva_instead_of_gpu": staged_uva,
        }.items()
    }


def _host_buffer_calls(t) -> dict[str, Any]:
    def rows():
        b = t.buffer_cls(4, 2, dtype=torch.int32, device="cpu")
        b.np[:] = np.arange(8, dtype=np.int32).reshape(4, 2)
        r = b.copy_to_gpu(3)
        b.np[:] = -1  # after the call: on the host the copy has already run
        return {
            "result": r,
            "view of .gpu": r.data_ptr() == b.gpu.data_ptr(),
            ".gpu": b.gpu,
        }

    def whole():
        b = t.buffer_cls(3, dtype=torch.float32, device="cpu")
        b.cpu.copy_(torch.tensor([1.5, 2.5, 3.5]))
        g0 = b.gpu
        r = b.copy_to_gpu()
        return {"result": r, "is .gpu": r is b.gpu, "same .gpu": g0 is b.gpu}

    def refused():
        b = t.buffer_cls(2, dtype=torch.int32, device="cpu")
        return [outcome(lambda: b.copy_to_gpu(3)), outcome(lambda: b.copy_to_gpu(True)), b.gpu]

    return {k: outcome(v) for k, v in {"copy_to_gpu(3)": rows, "copy_to_gpu()": whole, "refusals": refused}.items()}


HOST_CHECKS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "b15_small_offset_rounded_down": _host_h2d_calls,
    "b16_payload_bytes_of_source": _host_h2d_calls,
    "b17_host_index_for_device": _host_staged_calls,
    "b18_uva_np_before_pinning": _host_uva_calls,
    "b19_pool_cap_min_for_max": _host_h2d_calls,
    "b20_buffer_copy_from_clone": _host_buffer_calls,
    "b21_gather_at_host_offset": _host_h2d_calls,
    "b22_permuted_result_cloned": _host_h2d_calls,
    "b23_small_lock_narrowed": _host_h2d_calls,
    "b24_done_query_uncalled": _host_h2d_calls,
}


def gpu_input(mod: Any) -> str:
    doc = mod.__doc__ or ""
    i = doc.find("GPU input:")
    return " ".join(doc[i:].split()) if i >= 0 else "(see the module docstring)"


# --------------------------------------------------------------------------- main


def main() -> int:
    assert not torch.cuda.is_available(), "this reproduction is written for a CPU-only host"
    control = importlib.import_module(f"r48.{CONTROL}").target()
    print(f"control: {control.name}; torch {torch.__version__}, numpy {np.__version__}, CUDA available: False")
    print()
    print("=" * 100)
    print("CPU-visible bugs: smallest input, control vs bug (must differ)")
    print("=" * 100)
    failed: list[str] = []
    for name in CPU_BUGS:
        bug = importlib.import_module(f"r48.{name}").target()
        text, case = CPU_CASES[name]
        ref = outcome(lambda: case(control))
        got = outcome(lambda: case(bug))
        differ = ref != got
        print(f"{name}")
        print(f"  input:   {text}")
        print(f"  control: {short(ref)}")
        print(f"  bug:     {short(got)}")
        print(f"  differ:  {differ}")
        if not differ:
            failed.append(name)
        print()
    print("=" * 100)
    print("GPU-only bugs: public calls on this host, control vs bug (must agree)")
    print("=" * 100)
    for name in GPU_BUGS:
        mod = importlib.import_module(f"r48.{name}")
        bug = mod.target()
        check = HOST_CHECKS[name]
        ref = check(control)
        got = check(bug)
        same = ref == got
        print(f"{name}")
        for key in ref:
            mark = "same" if ref[key] == got.get(key) else "DIFFERENT"
            print(f"  {mark:9} {key}: {short(got.get(key), 110)}")
            if ref[key] != got.get(key):
                print(f"            control: {short(ref[key], 110)}")
        print(f"  host behaviour identical: {same}")
        print(f"  {gpu_input(mod)}")
        if not same:
            failed.append(name)
        print()
    if failed:
        print(f"FAILED: {failed}")
        raise AssertionError(f"repro failed for {failed}")
    print(f"all {len(CPU_BUGS)} CPU bugs differ from the control on their smallest input;")
    print(f"all {len(GPU_BUGS)} GPU-only bugs behave as the control on this host")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
