"""Round r42: run every CPU-visible bug's smallest input on its target, on the control b00 and on the plain reference.

``python -m r42.repro`` from the directory holding ``r42/``. For each scenario the same user code
runs three times, against

- ``ref``: the plain reference, ``h2d_contracts.h2d_impl`` (``async_tensor_h2d``,
  ``async_tensor_h2d_cpu``, ``CpuGpuBuffer``, ``buffer_utils``), called as a user calls it;
- ``control``: ``r42.b00_control.target()`` (``target().call(data, kwargs)``, the target's CPU
  variant, ``buffer_cls`` and ``buffer_utils`` classes);
- ``bug``: ``r42.bNN_*.target()``, the same way.

An outcome is the returned value (dtype, shape, device and every byte of each tensor, plus any
after-state the scenario reads) or the exception type. A line says ``BUGGY`` when the bug's outcome
differs from the reference's, and ``control OK`` when the control's equals it. GPU-only bugs are
listed as skipped where CUDA is unavailable.
"""

from __future__ import annotations

import importlib
import types
from typing import Any, Callable

import numpy as np
import torch

from h2d_contracts import h2d_impl

BUGS = [
    "b01_adjacent_slices_overlap",
    "b02_cpu_variant_dtype_before_device",
    "b03_pieces_true_division",
    "b04_cuda_falls_back_to_host",
    "b05_is_floating_point_uncalled",
    "b06_nan_check_de_morgan",
    "b07_flat_complex_default_real",
    "b08_fast_path_abs_stride",
    "b09_nd_array_flattened_in_place",
    "b10_capacity_from_numpy_view",
    "b11_size_type_check_dedented",
    "b12_apply_write_np_any_as_nonempty",
    "b13_fused_writes_late_binding",
    "b14_fused_tables_zip_truncated",
    "b15_staged_row_len_float",
    "b16_pool_slot_tickets_shared",
    "b17_pool_cursor_local_alias",
    "b18_backed_zero_rows_stale",
    "b19_backed_initial_view_empty",
    "b20_small_chunk_below_small_max",
]
GPU_ONLY = {"b20_small_chunk_below_small_max"}
#: visible only where CUDA is absent (on a CUDA host the reference also accepts "cuda")
NO_CUDA_ONLY = {"b04_cuda_falls_back_to_host"}


class Impl(types.SimpleNamespace):
    """What a user holds: the main function, the CPU variant, CpuGpuBuffer, the Model Runner V2 classes."""


def reference() -> Impl:
    return Impl(
        call=lambda data, kwargs: h2d_impl.async_tensor_h2d(data, **kwargs),
        variant=h2d_impl.async_tensor_h2d_cpu,
        Buffer=h2d_impl.CpuGpuBuffer,
        bu=h2d_impl.buffer_utils,
    )


def of_target(module: str) -> Impl:
    t = importlib.import_module(f"r42.{module}").target()
    return Impl(call=t.call, variant=t.cpu_variant, Buffer=t.buffer_cls, bu=t.buffer_utils)


def norm(x: Any) -> Any:
    """A comparable, NaN-safe picture of a value: tensors by dtype, shape, device and raw bytes."""
    if isinstance(x, torch.Tensor):
        flat = x.detach().cpu().reshape(-1).contiguous()
        return ("tensor", str(x.dtype), tuple(x.shape), x.device.type, bytes(flat.view(torch.uint8).tolist()))
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.shape, x.tobytes())
    if isinstance(x, (list, tuple)):
        return type(x).__name__, tuple(norm(v) for v in x)
    return x


def outcome(fn: Callable[[], Any]) -> Any:
    try:
        return ("value", norm(fn()))
    except Exception as exc:  # noqa: BLE001 (the exception type is the outcome)
        return ("raise", type(exc).__name__)


def short(o: Any) -> str:
    if o[0] == "raise":
        return f"raises {o[1]}"

    def s(v: Any) -> str:
        if isinstance(v, tuple) and v and v[0] == "tensor":
            _, dt, shape, dev, raw = v
            t = torch.frombuffer(bytearray(raw), dtype=getattr(torch, dt.split(".")[1])) if raw else torch.empty(0)
            vals = t.reshape(shape).tolist() if raw else []
            text = f"{dt.split('.')[1]}{list(shape)}{'' if dev == 'cpu' else '@' + dev}={vals}"
            return text if len(text) <= 70 else text[:67] + "..."
        if isinstance(v, tuple) and v and v[0] in ("tuple", "list"):
            if all(isinstance(w, int) for w in v[1]):
                return repr(tuple(v[1]))
            return "(" + ", ".join(s(w) for w in v[1]) + ")"
        return repr(v)

    return s(o[1])


# ---------------------------------------------------------------- scenarios (each the bug's smallest input)


def s01(I: Impl) -> Any:
    b = torch.arange(8.0)
    out = b[4:]
    r = I.call(b[:4], {"out": out})
    return r is out, b


def s02(I: Impl) -> Any:
    return I.variant([1, 2], "cpu")


def s03(I: Impl) -> Any:
    return I.call(torch.zeros(40000, dtype=torch.float16), {"device": "cpu", "dtype": torch.float32})


def s04(I: Impl) -> Any:
    return I.call([1, 2], {"device": "cuda"})


def s05(I: Impl) -> Any:
    return I.call(np.array([2**63 - 1], dtype=np.uint64), {"device": "cpu", "dtype": torch.int64})


def s06(I: Impl) -> Any:
    return I.call([1.0, float("nan")], {"device": "cpu", "dtype": torch.int32})


def s07(I: Impl) -> Any:
    return I.call([1 + 2j, 3j], {"device": "cpu"})


def s08(I: Impl) -> Any:
    return I.call(np.arange(5)[::-1], {"device": "cpu"})


def s09(I: Impl) -> Any:
    a = np.zeros((2, 3), dtype=np.int32)
    r = I.call(a, {"device": "cpu"})
    return r, a.shape


def s10(I: Impl) -> Any:
    b = I.Buffer(4, dtype=torch.bfloat16, device="cpu", with_numpy=False)
    b.cpu[:] = 1.5
    return b.copy_to_gpu(2), b.gpu


def s11(I: Impl) -> Any:
    return tuple(I.Buffer(True, 4, dtype=torch.int32, device="cpu").cpu.shape)


def s12(I: Impl) -> Any:
    t = I.bu.StagedWriteTensor((2, 3), torch.int32, "cpu")
    t.stage_write(0, 0, [1, 2, 3])
    t.apply_write()
    return t.gpu


def _two_staged(I: Impl) -> tuple[Any, Any]:
    a = I.bu.StagedWriteTensor((2, 3), torch.int32, "cpu")
    b = I.bu.StagedWriteTensor((2, 3), torch.int32, "cpu")
    a.stage_write(0, 0, [1, 2, 3])
    b.stage_write(1, 0, [4, 5, 6])
    return a, b


def s13(I: Impl) -> Any:
    a, b = _two_staged(I)
    ptrs = torch.tensor([a.gpu.data_ptr(), b.gpu.data_ptr()], dtype=torch.uint64)
    strides = torch.tensor([a.gpu.stride(0), b.gpu.stride(0)])
    I.bu.FusedStagedWriter("cpu", 2).apply([a, b], ptrs, strides)
    return a.gpu, b.gpu


def s14(I: Impl) -> Any:
    a, b = _two_staged(I)
    ptrs = torch.tensor([a.gpu.data_ptr()], dtype=torch.uint64)
    strides = torch.tensor([a.gpu.stride(0)])
    I.bu.FusedStagedWriter("cpu", 2).apply([a, b], ptrs, strides)
    return a.gpu, b.gpu


def s15(I: Impl) -> Any:
    t = I.bu.StagedWriteTensor(4, torch.int32, "cpu")
    t.stage_write(1, 0, [7])
    t.apply_write()
    return t.gpu


def s16(I: Impl) -> Any:
    p = I.bu.UvaBufferPool(2, torch.int32, 2)
    q = I.bu.UvaBufferPool(2, torch.int32, 2)
    a = p.copy_to_uva([1, 1])
    q.copy_to_uva([5, 5])
    p.copy_to_uva([2, 2])
    return a


def s17(I: Impl) -> Any:
    p = I.bu.UvaBufferPool(2, torch.int32, 2)
    a = p.copy_to_uva([1, 1])
    p.copy_to_uva([2, 2])
    return a


def s18(I: Impl) -> Any:
    b = I.bu.UvaBackedTensor(4, torch.int32)
    b.np[:] = [1, 2, 3, 4]
    b.copy_to_uva(2)
    r = b.copy_to_uva(0)
    return r, r is b.gpu


def s19(I: Impl) -> Any:
    return I.bu.UvaBackedTensor((4, 2), torch.int32).gpu


def s20(I: Impl) -> Any:  # CUDA only
    return I.call(np.zeros(40000, dtype=np.int32), {"device": "cuda"})


SCENARIOS: dict[str, tuple[Callable[[Impl], Any], str]] = {
    "b01_adjacent_slices_overlap": (s01, "b = torch.arange(8.0); async_tensor_h2d(b[:4], out=b[4:]) -> (result is out, b)"),
    "b02_cpu_variant_dtype_before_device": (s02, 'async_tensor_h2d_cpu([1, 2], "cpu")'),
    "b03_pieces_true_division": (s03, 'async_tensor_h2d(torch.zeros(40000, dtype=torch.float16), device="cpu", dtype=torch.float32)'),
    "b04_cuda_falls_back_to_host": (s04, 'async_tensor_h2d([1, 2], device="cuda")  # no CUDA here'),
    "b05_is_floating_point_uncalled": (s05, 'async_tensor_h2d(np.array([2**63 - 1], dtype=np.uint64), device="cpu", dtype=torch.int64)'),
    "b06_nan_check_de_morgan": (s06, 'async_tensor_h2d([1.0, float("nan")], device="cpu", dtype=torch.int32)'),
    "b07_flat_complex_default_real": (s07, 'async_tensor_h2d([1 + 2j, 3j], device="cpu")'),
    "b08_fast_path_abs_stride": (s08, 'async_tensor_h2d(np.arange(5)[::-1], device="cpu")'),
    "b09_nd_array_flattened_in_place": (s09, 'a = np.zeros((2, 3), np.int32); async_tensor_h2d(a, device="cpu") -> (result, a.shape)'),
    "b10_capacity_from_numpy_view": (s10, 'b = CpuGpuBuffer(4, dtype=torch.bfloat16, device="cpu", with_numpy=False); b.copy_to_gpu(2)'),
    "b11_size_type_check_dedented": (s11, 'CpuGpuBuffer(True, 4, dtype=torch.int32, device="cpu").cpu.shape'),
    "b12_apply_write_np_any_as_nonempty": (s12, 't = StagedWriteTensor((2, 3), torch.int32, "cpu"); t.stage_write(0, 0, [1, 2, 3]); t.apply_write(); t.gpu'),
    "b13_fused_writes_late_binding": (s13, "two StagedWriteTensors with one write each; FusedStagedWriter.apply([a, b], ptrs, strides) -> (a.gpu, b.gpu)"),
    "b14_fused_tables_zip_truncated": (s14, "the same, with ptr/stride tables of a only -> (a.gpu, b.gpu)"),
    "b15_staged_row_len_float": (s15, 't = StagedWriteTensor(4, torch.int32, "cpu"); t.stage_write(1, 0, [7]); t.apply_write(); t.gpu'),
    "b16_pool_slot_tickets_shared": (s16, "p, q = UvaBufferPool(2, int32, 2) x2; a = p.copy_to_uva([1, 1]); q.copy_to_uva([5, 5]); p.copy_to_uva([2, 2]); a"),
    "b17_pool_cursor_local_alias": (s17, "p = UvaBufferPool(2, int32, 2); a = p.copy_to_uva([1, 1]); p.copy_to_uva([2, 2]); a"),
    "b18_backed_zero_rows_stale": (s18, "b = UvaBackedTensor(4, int32); b.np[:] = [1, 2, 3, 4]; b.copy_to_uva(2); b.copy_to_uva(0)"),
    "b19_backed_initial_view_empty": (s19, "UvaBackedTensor((4, 2), torch.int32).gpu"),
    "b20_small_chunk_below_small_max": (s20, 'async_tensor_h2d(np.zeros(40000, dtype=np.int32), device="cuda")'),
}


def device_generic_b20() -> str:
    """Not a user call: b20's staging decision on the device-generic path with a host target (its call-trace use)."""
    from r42 import b20_small_chunk_below_small_max as b20
    from r42._common import fork

    def run(f: Any) -> Any:
        x = np.zeros(40000, dtype=np.int32)
        return outcome(lambda: f.h2d._to_device(x, torch.from_numpy(x), torch.int32, torch.device("cpu"), None, pin=False))

    ref, bug = run(fork("b20ref")), run(b20._fork())
    return f"ref={short(ref)} bug={short(bug)} -> {'differs' if ref != bug else 'same'}"


def main() -> None:
    cuda = torch.cuda.is_available()
    ref, ctl = reference(), of_target("b00_control")
    buggy = ctl_ok = cpu_visible = 0
    skipped = []
    print(f"round r42 repro: torch {torch.__version__}, CUDA {'available' if cuda else 'unavailable'}")
    for name in BUGS:
        fn, text = SCENARIOS[name]
        if name in GPU_ONLY and not cuda:
            skipped.append(name)
            print(f"{name}: SKIPPED (GPU-only; no CUDA here)\n    input: {text}")
            continue
        if name in NO_CUDA_ONLY and cuda:
            skipped.append(name)
            print(f"{name}: SKIPPED (shows only where CUDA is unavailable)\n    input: {text}")
            continue
        cpu_visible += name not in GPU_ONLY
        o_ref, o_ctl, o_bug = outcome(lambda: fn(ref)), outcome(lambda: fn(ctl)), outcome(lambda: fn(of_target(name)))
        is_buggy, is_ok = o_bug != o_ref, o_ctl == o_ref
        buggy += is_buggy
        ctl_ok += is_ok
        print(
            f"{name}: {'BUGGY' if is_buggy else 'NOT BUGGY'}; control {'OK' if is_ok else 'MISMATCH'}\n"
            f"    input: {text}\n"
            f"    reference: {short(o_ref)}\n    control:   {short(o_ctl)}\n    bug:       {short(o_bug)}"
        )
    if not cuda:
        print(f"b20_small_chunk_below_small_max, device-generic path (INFO, not a user call): {device_generic_b20()}")
    ran = len(BUGS) - len(skipped)
    print(
        f"SUMMARY: BUGGY {buggy} of {ran} scenarios run ({cpu_visible} CPU-visible bugs); "
        f"control OK {ctl_ok} of {ran}; skipped {len(skipped)}: {', '.join(skipped) or '-'}"
    )


if __name__ == "__main__":
    main()
