"""Round r44: run each bug's smallest input against the bug's target and against b00_control.

Prints one line per bug: BUGGY (the bug's outcome differs from the control's), OK (no
difference: the bug is not shown) or SKIP (GPU-only, with the reason), and checks on
every scenario that the control gives exactly what the plain reference
(``h2d_contracts.h2d_impl``) gives.

Run: ``PYTHONPATH=/tmp/r44/author /work/kit_m/.venv/bin/python -m r44.repro``
(or ``python r44/repro.py`` from /tmp/r44/author with that PYTHONPATH).
"""

from __future__ import annotations

import importlib
import sys
import threading
import types
import warnings

import numpy as np
import torch

from h2d_contracts import h2d_impl

BUGS = [
    "b01_stage_shape_unpacked",
    "b02_flat_list_scratch_shared",
    "b03_fill_uninit_memory_switched_off",
    "b04_range_trunc_by_int64_cast",
    "b05_ragged_handlers_merged",
    "b06_serial_copy_any_numpy_source",
    "b07_numpy_rewrap_dropped",
    "b08_out_device_identity",
    "b09_out_resized_like_torch_out",
    "b10_error_preview_print_options",
    "b11_staged_write_out_of_place",
    "b12_backed_gpu_refreshed_in_place",
    "b13_overlap_empty_guard_dropped",
    "b14_dtype_taken_from_out_before_check",
    "b15_ndarray_out_wrapped",
    "b16_buffer_np_truthiness",
    "b17_cuda_device_object_unvalidated",
    "b18_range_check_small_payloads_only",
    "b19_permuted_pinned_into_strided_out",
    "b20_buffer_rows_snapshot_cloned",
]

GPU_ONLY = {
    "b19_permuted_pinned_into_strided_out": "needs CUDA and pinned memory: a pinned transposed tensor into a contiguous "
    "CUDA out behind queued work (host waits; 'Pageable -> Device' in the profiler)",
    "b20_buffer_rows_snapshot_cloned": "needs CUDA and pinned memory: copy_to_gpu(n) of a pinned buffer behind queued "
    "work (host waits; no hazard: a hidden pageable snapshot)",
}

REFERENCE = types.SimpleNamespace(
    name="reference",
    async_tensor_h2d=h2d_impl.async_tensor_h2d,
    cpu_variant=h2d_impl.async_tensor_h2d_cpu,
    buffer_cls=h2d_impl.CpuGpuBuffer,
    buffer_utils=h2d_impl.buffer_utils,
)


def norm(x):
    """A comparable, printable form of a result."""
    if isinstance(x, torch.Tensor):
        return ("tensor", str(x.dtype), tuple(x.shape), x.tolist())
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.shape, x.tolist())
    if isinstance(x, (list, tuple)):
        return tuple(norm(v) for v in x)
    return x


def outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                return ("ok", norm(fn()))
    except BaseException as exc:  # noqa: BLE001 (AssertionError included: it is an outcome)
        return ("raise", type(exc).__name__, str(exc).splitlines()[0][:160] if str(exc) else "")


def i64(*v):
    return torch.tensor(v, dtype=torch.int64)


# ---------------------------------------------------------------------------------- scenarios


def s01(t):
    return [outcome(lambda: t.async_tensor_h2d(5, device="cpu")), outcome(lambda: t.cpu_variant(5, device="cpu"))]


def s02(t):
    """4 threads x 2,000 calls of a distinct 64-int list each; the count of results that are not the caller's list."""
    bad_total = 0
    for _attempt in range(3):
        old = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)
        try:
            bar = threading.Barrier(4)
            bad = [0] * 4

            def work(k):
                data = list(range(k * 1000, k * 1000 + 64))
                bar.wait()
                for _ in range(2000):
                    if t.async_tensor_h2d(data, device="cpu").tolist() != data:
                        bad[k] += 1

            threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
        finally:
            sys.setswitchinterval(old)
        bad_total = sum(bad)
        if bad_total:
            break
    return [("wrong results", "none" if bad_total == 0 else "some"), ("count", bad_total)]


def s03(t):
    torch.utils.deterministic.fill_uninitialized_memory = True
    try:
        r = outcome(lambda: t.async_tensor_h2d([1], device="cpu"))
        return [r, ("fill_uninitialized_memory after", torch.utils.deterministic.fill_uninitialized_memory)]
    finally:
        torch.utils.deterministic.fill_uninitialized_memory = True


def s04(t):
    return [
        outcome(lambda: t.async_tensor_h2d([1e19], dtype=torch.uint64, device="cpu")),
        outcome(lambda: t.async_tensor_h2d([2.0**63], dtype=torch.int64, device="cpu")),
    ]


def s05(t):
    return [outcome(lambda: t.async_tensor_h2d([[1], [1, 2]], device="cpu"))]


def s06(t):
    return [outcome(lambda: t.async_tensor_h2d(torch.zeros(32769), dtype=torch.bfloat16, device="cpu").sum())]


def s07(t):
    return [outcome(lambda: t.async_tensor_h2d(np.array([1.0], dtype=np.longdouble), device="cpu"))]


def s08(t):
    return [outcome(lambda: t.async_tensor_h2d([1], device="cpu", out=torch.zeros(1, dtype=torch.int64)))]


def s09(t):
    out = i64(9, 9, 9, 9)
    r = outcome(lambda: t.async_tensor_h2d([7], out=out))
    out2 = torch.zeros(3, dtype=torch.uint8)
    r2 = outcome(lambda: t.async_tensor_h2d([-1], dtype=torch.uint8, out=out2))
    return [r, ("out after", norm(out)), r2, ("out2 after", norm(out2))]


def s10(t):
    try:
        r = outcome(lambda: t.async_tensor_h2d([0.0, 0.0], out=torch.zeros(1).expand(2)))
        opts = torch._tensor_str.PRINT_OPTS
        return [r[:2], ("print options after", opts.threshold, opts.edgeitems)]
    finally:
        torch.set_printoptions(profile="default")


def s11(t):
    def run():
        w = t.buffer_utils.StagedWriteTensor(4, torch.int32, "cpu")
        w.stage_write(1, 0, [7])
        w.apply_write()
        return w.gpu

    return [outcome(run)]


def s12(t):
    def run():
        b = t.buffer_utils.UvaBackedTensor(4, torch.int32)
        b.np[:] = 1
        g1 = b.copy_to_uva()
        b.np[:] = 2
        b.copy_to_uva()
        return g1

    def partial():
        b = t.buffer_utils.UvaBackedTensor(4, torch.int32)
        b.np[:] = 3
        return b.copy_to_uva(2)

    return [outcome(run), outcome(partial)]


def s13(t):
    return [outcome(lambda: t.async_tensor_h2d(torch.zeros(0), out=torch.zeros(0)))]


def s14(t):
    out = torch.zeros(1, dtype=torch.int32)
    r = outcome(lambda: t.async_tensor_h2d([1.5], dtype=torch.float64, out=out))
    return [r, ("out after", norm(out))]


def s15(t):
    arr = np.array([0.5])
    r = outcome(lambda: t.async_tensor_h2d([0], out=arr, device="cpu"))
    rv = outcome(lambda: t.cpu_variant([0], out=np.array([0.5]), device="cpu"))
    return [r, ("array after", norm(arr)), ("variant", rv)]


def s16(t):
    return [
        outcome(lambda: t.buffer_cls(2, dtype=torch.int32, device="cpu").np),
        outcome(lambda: t.buffer_cls(1, dtype=torch.int32, device="cpu").np),
    ]


def s17(t):
    return [outcome(lambda: t.async_tensor_h2d([1], device=torch.device("cuda", 0)))]


def s18(t):
    return [
        outcome(lambda: t.async_tensor_h2d(np.full(65537, -1, dtype=np.int64), dtype=torch.uint8, device="cpu")[:4]),
        outcome(lambda: t.async_tensor_h2d(np.full(65536, -1, dtype=np.int64), dtype=torch.uint8, device="cpu")[:4]),
    ]


def s19(t):
    """CPU check only: a transposed tensor into a contiguous out (on the host: never the zero-copy path)."""
    out = torch.zeros(3, 2, dtype=torch.int64)
    return [outcome(lambda: t.async_tensor_h2d(torch.arange(6).reshape(2, 3).t(), out=out))]


def s20(t):
    """CPU check only: copy_to_gpu(n) and copy_to_gpu() of a filled buffer (values and returned views)."""

    def run():
        b = t.buffer_cls(4, 2, dtype=torch.int32, device="cpu")
        b.np[:] = np.arange(8).reshape(4, 2)
        v = b.copy_to_gpu(3)
        w = b.copy_to_gpu()
        return (v, v.data_ptr() == b.gpu.data_ptr(), w is b.gpu, b.gpu)

    return [outcome(run)]


SCENARIOS = {name: globals()[f"s{name[1:3]}"] for name in BUGS}
SMALLEST = {
    "b01_stage_shape_unpacked": 'async_tensor_h2d(5, device="cpu")',
    "b02_flat_list_scratch_shared": "4 threads x 2,000 x async_tensor_h2d(own 64-int list, device='cpu')",
    "b03_fill_uninit_memory_switched_off": 'async_tensor_h2d([1], device="cpu"); torch.utils.deterministic.fill_uninitialized_memory',
    "b04_range_trunc_by_int64_cast": 'async_tensor_h2d([1e19], dtype=torch.uint64, device="cpu")',
    "b05_ragged_handlers_merged": 'async_tensor_h2d([[1], [1, 2]], device="cpu")',
    "b06_serial_copy_any_numpy_source": 'async_tensor_h2d(torch.zeros(32769), dtype=torch.bfloat16, device="cpu")',
    "b07_numpy_rewrap_dropped": 'async_tensor_h2d(np.array([1.0], dtype=np.longdouble), device="cpu")',
    "b08_out_device_identity": 'async_tensor_h2d([1], device="cpu", out=torch.zeros(1, dtype=torch.int64))',
    "b09_out_resized_like_torch_out": "async_tensor_h2d([7], out=torch.tensor([9, 9, 9, 9]))",
    "b10_error_preview_print_options": "async_tensor_h2d([0.0, 0.0], out=torch.zeros(1).expand(2)); PRINT_OPTS",
    "b11_staged_write_out_of_place": 'StagedWriteTensor(4, torch.int32, "cpu"): stage_write(1, 0, [7]); apply_write()',
    "b12_backed_gpu_refreshed_in_place": "UvaBackedTensor(4, torch.int32): two refreshes, the first view re-read",
    "b13_overlap_empty_guard_dropped": "async_tensor_h2d(torch.zeros(0), out=torch.zeros(0))",
    "b14_dtype_taken_from_out_before_check": "async_tensor_h2d([1.5], dtype=torch.float64, out=torch.zeros(1, dtype=torch.int32))",
    "b15_ndarray_out_wrapped": 'async_tensor_h2d([0], out=np.array([0.5]), device="cpu")',
    "b16_buffer_np_truthiness": 'CpuGpuBuffer(2, dtype=torch.int32, device="cpu").np',
    "b17_cuda_device_object_unvalidated": 'async_tensor_h2d([1], device=torch.device("cuda", 0))  (CPU-only host)',
    "b18_range_check_small_payloads_only": 'async_tensor_h2d(np.full(65537, -1, np.int64), dtype=torch.uint8, device="cpu")',
    "b19_permuted_pinned_into_strided_out": "(GPU) pinned x.t() into a contiguous CUDA out behind 100 ms of queued work",
    "b20_buffer_rows_snapshot_cloned": "(GPU) pinned CpuGpuBuffer.copy_to_gpu(n) behind 100 ms of queued work",
}


def main() -> int:
    control = importlib.import_module("r44.b00_control").target()
    lines = []
    buggy = ok = skip = 0
    control_matches = True
    cuda = torch.cuda.is_available()
    for name in BUGS:
        bug = importlib.import_module(f"r44.{name}").target()
        scen = SCENARIOS[name]
        ref_out = scen(REFERENCE)
        ctl_out = scen(control)
        if ctl_out != ref_out:
            control_matches = False
            lines.append(f"CONTROL MISMATCH {name}: control={ctl_out} reference={ref_out}")
        bug_out = scen(bug)
        if name in GPU_ONLY and not cuda:
            skip += 1
            same = "bug == control" if bug_out == ctl_out else "bug != control (unexpected)"
            lines.append(f"SKIP  {name}: GPU-only, {GPU_ONLY[name]}; CPU check: {same}")
            continue
        if bug_out != ctl_out:
            buggy += 1
            lines.append(f"BUGGY {name}\n      input:   {SMALLEST[name]}\n      control: {ctl_out}\n      bug:     {bug_out}")
        else:
            ok += 1
            lines.append(f"OK    {name}: no difference on {SMALLEST[name]}: {bug_out}")
    print(f"torch {torch.__version__}, numpy {np.__version__}, CUDA available: {cuda}")
    print("\n".join(lines))
    print(
        f"SUMMARY: {buggy} BUGGY, {ok} OK (not shown), {skip} SKIP (GPU-only) of {len(BUGS)}; "
        f"control == reference on every scenario: {'yes' if control_matches else 'NO'}"
    )
    return 0 if control_matches and ok == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
