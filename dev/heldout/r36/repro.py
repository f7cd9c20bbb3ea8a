"""Direct reproductions of round r36: each bug target against the reference on its smallest input.

Run from the round's parent folder::

    cd /work/r36_author && PYTHONPATH=/work/r36_author python r36/repro.py

For every CPU bug a probe (a function of a Target returning a printable outcome: the
result's dtype and values, or the exception type) runs on the reference (the unforked
``h2d_contracts.h2d_impl`` as a Target) and on the bug's ``target()``: BUGGY when the
reference gives its documented outcome and the bug gives another. The same probes run on
the control (``b00_control``), which must give the reference's outcome everywhere. GPU-only
bugs run their probes only when ``torch.cuda.is_available()`` (SKIPPED otherwise); on a
host without CUDA the same bugs are also shown to be invisible there (their host calls
give the reference's outcome).

Exit status: 0 when every CPU bug is BUGGY and the control differs nowhere (and, with
CUDA, every GPU bug is BUGGY); 1 otherwise.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
import tempfile
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from h2d_contracts.contracts import Target  # noqa: E402

from r36._common import buffer_utils_ns, make_target  # noqa: E402

REF: Target = make_target("reference", buffer_utils=buffer_utils_ns())  # the reference itself, no fork
CUDA = torch.cuda.is_available()


def show(r: Any) -> str:
    if isinstance(r, torch.Tensor):
        return f"{r.dtype} {r.tolist()}" + (f" on {r.device}" if r.device.type != "cpu" else "")
    if isinstance(r, np.ndarray):
        return f"ndarray {r.tolist()}"
    return repr(r)


def outcome(fn: Callable[[], Any]) -> str:
    try:
        return show(fn())
    except Exception as exc:  # noqa: BLE001 - the exception type is the outcome
        return f"raises {type(exc).__name__}"


# -- probes of the CPU bugs ------------------------------------------------------------------


def p01(t: Target) -> str:
    return outcome(lambda: t.async_tensor_h2d([1, 2.5], device="cpu"))


def p02(t: Target) -> str:
    b = torch.arange(8)
    return outcome(lambda: t.async_tensor_h2d(b[:4], out=b[4:]))


def p03(t: Target) -> str:
    return outcome(lambda: t.async_tensor_h2d([70000.0], dtype=torch.float16, device="cpu"))


def p04(t: Target) -> str:
    return outcome(lambda: t.async_tensor_h2d(np.zeros(0, np.complex64), dtype=torch.float32, device="cpu"))


def p05(t: Target) -> str:
    with tempfile.TemporaryDirectory() as d:
        mm = np.memmap(os.path.join(d, "ids.bin"), dtype=np.int32, mode="w+", shape=(3,))
        mm[:] = [0, 1, 2]
        mm.flush()
        return outcome(lambda: t.async_tensor_h2d(mm, device="cpu"))


def p06(t: Target) -> str:
    t.async_tensor_h2d((1,), device="cpu")
    return outcome(lambda: t.async_tensor_h2d((1.0,), device="cpu"))


def p07(t: Target) -> str:
    out = torch.empty_strided((2, 2), (1, 1), dtype=torch.int64).fill_(77)
    return outcome(lambda: t.async_tensor_h2d([[1, 2], [3, 4]], out=out))


def p08(t: Target) -> str:
    a = t.async_tensor_h2d([], device="cpu")
    b = t.async_tensor_h2d([], device="cpu")
    return f"same object: {a is b}"


def p09(t: Target) -> str:
    neg = torch.tensor([1 + 2j]).conj().imag  # [-2.0] with the negative bit set
    return outcome(lambda: t.async_tensor_h2d(neg, dtype=torch.bool, device="cpu"))


def p10(t: Target) -> str:
    return outcome(lambda: t.async_tensor_h2d(torch.tensor([1], dtype=torch.uint16), device="cpu"))


def p11(t: Target) -> str:
    return outcome(lambda: t.cpu_variant(torch.tensor([1])))


def p12(t: Target) -> str:
    return outcome(lambda: t.async_tensor_h2d([1], device="cpu:0", out=torch.zeros(1, dtype=torch.int64)))


def p13(t: Target) -> str:
    x = torch.tensor([1, 2])
    return outcome(lambda: t.async_tensor_h2d(x, out=x))


def p14(t: Target) -> str:
    b = t.buffer_cls(4, dtype=torch.int32, device="cpu")
    return outcome(lambda: b.copy_to_gpu(np.int64(2)))


def p15(t: Target) -> str:
    b = t.buffer_cls(2, dtype=torch.int32, device="cpu")
    g = b.gpu
    b.cpu[:] = 5
    b.copy_to_gpu()
    return f"held .gpu: {show(g)}"


def p16(t: Target) -> str:
    s = t.buffer_utils.StagedWriteTensor((2, 3), torch.int32, "cpu")
    staged = outcome(lambda: s.stage_write(0, 2, [7, 8]))
    s.apply_write()
    return f"stage_write: {staged}; gpu {s.gpu.tolist()}"


def p17(t: Target) -> str:
    s = t.buffer_utils.StagedWriteTensor(2, torch.int32, "cpu")
    s.stage_write(1, 0, [5])
    applied = outcome(s.apply_write)
    return f"apply_write: {applied}; gpu {s.gpu.tolist()}"


def p18(t: Target) -> str:
    s = t.buffer_utils.StagedWriteTensor(2, torch.int32, "cpu")
    s.stage_write(0, 0, [5])
    s.stage_write(1, 0, [2**40])
    applied = outcome(s.apply_write)
    positions, _ = s.staged_positions()
    return f"apply_write: {applied}; still staged: {positions.tolist()}"


def p19(t: Target) -> str:
    ids = [1, 2]
    s = t.buffer_utils.StagedWriteTensor((1, 2), torch.int32, "cpu")
    s.stage_write(0, 0, ids)
    ids[0] = 9
    s.apply_write()
    return f"gpu {s.gpu.tolist()}"


def p20(t: Target) -> str:
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(2, torch.int32, "cpu"), bu.StagedWriteTensor(2, torch.int32, "cpu")
    a.stage_write(0, 0, [5])
    b.stage_write(1, 0, [6])
    swapped = torch.tensor([b.gpu.data_ptr(), a.gpu.data_ptr()], dtype=torch.uint64)
    strides = torch.tensor([a.gpu.stride(0), b.gpu.stride(0)])
    applied = outcome(lambda: bu.FusedStagedWriter("cpu", 2).apply([a, b], swapped, strides))
    return f"apply: {applied}; a {a.gpu.tolist()} b {b.gpu.tolist()}"


def p21(t: Target) -> str:
    p = t.buffer_utils.UvaBufferPool(2, torch.int32, max_concurrency=1)
    r = p.copy_to_gpu(np.array([1, 2], np.int32))
    p.copy_to_gpu(np.array([3, 4], np.int32))
    return f"first result {r.tolist()}"


def p22(t: Target) -> str:
    u = t.buffer_utils.UvaBackedTensor(2, torch.int32)
    u.np[:] = 7
    u.copy_to_uva()
    return f".gpu {u.gpu.tolist()}"


def p23(t: Target) -> str:
    bu = t.buffer_utils
    a, b = bu.StagedWriteTensor(1, torch.int32, "cpu"), bu.StagedWriteTensor(1, torch.int32, "cpu")
    a.stage_write(0, 0, [5])
    b.stage_write(0, 0, [2**40])
    ptrs = torch.tensor([a.gpu.data_ptr(), b.gpu.data_ptr()], dtype=torch.uint64)
    strides = torch.tensor([a.gpu.stride(0), b.gpu.stride(0)])
    applied = outcome(lambda: bu.FusedStagedWriter("cpu", 2).apply([a, b], ptrs, strides))
    return f"apply: {applied}; a {a.gpu.tolist()}, a still staged: {a.staged_positions()[0].tolist()}"


def p24(t: Target) -> str:
    s = t.buffer_utils.StagedWriteTensor(2, torch.int32, "cpu")
    return outcome(lambda: s.stage_write(-1, 0, []))


#: (module, probe, the reference's documented outcome)
CPU_CASES: list[tuple[str, Callable[[Target], str], str]] = [
    ("b01_flat_list_first_element_type", p01, "torch.float32 [1.0, 2.5]"),
    ("b02_overlap_by_storage", p02, "torch.int64 [0, 1, 2, 3]"),
    ("b03_half_overflow_refused", p03, "torch.float16 [inf]"),
    ("b04_empty_skips_kind_check", p04, "raises TypeError"),
    ("b05_ndarray_exact_type", p05, "torch.int32 [0, 1, 2]"),
    ("b06_tuple_source_memo", p06, "torch.float32 [1.0]"),
    ("b07_overlap_check_off_by_one", p07, "raises ValueError"),
    ("b08_empty_result_cached", p08, "same object: False"),
    ("b09_neg_view_into_bool_unresolved", p09, "torch.bool [True]"),
    ("b10_wide_unsigned_unsupported", p10, "torch.uint16 [1]"),
    ("b11_cpu_variant_tensor_fast_path", p11, "raises TypeError"),
    ("b12_out_device_compared_unresolved", p12, "torch.int64 [1]"),
    ("b13_out_is_data_refused", p13, "torch.int64 [1, 2]"),
    ("b14_buffer_numpy_int_rows", p14, "torch.int32 [0, 0]"),
    ("b15_buffer_full_copy_rebinds_gpu", p15, "held .gpu: torch.int32 [5, 5]"),
    ("b16_staged_write_start_only_bounds", p16, "stage_write: raises IndexError; gpu [[0, 0, 0], [0, 0, 0]]"),
    ("b17_staged_write_row_len_last_dim", p17, "apply_write: None; gpu [0, 5]"),
    ("b18_apply_write_clears_on_error", p18, "apply_write: raises ValueError; still staged: [0, 1]"),
    ("b19_staged_write_keeps_caller_rows", p19, "gpu [[1, 2]]"),
    ("b20_fused_ptrs_count_only", p20, "apply: raises ValueError; a [0, 0] b [0, 0]"),
    ("b21_pool_copy_to_gpu_returns_slot", p21, "first result [1, 2]"),
    ("b22_uva_backed_gpu_not_updated", p22, ".gpu [7, 7]"),
    ("b23_fused_writes_not_atomic", p23, "apply: raises ValueError; a [0], a still staged: [0]"),
    ("b24_staged_write_empty_skips_check", p24, "raises IndexError"),
]


# -- probes of the GPU-only bugs (CUDA) ------------------------------------------------------


def _busy(ms: float = 100.0) -> None:
    """Queue about ``ms`` of spin work on the current stream (calibrated once)."""
    global _CYCLES_PER_MS
    if _CYCLES_PER_MS is None:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.cuda._sleep(10_000_000)
        end.record()
        end.synchronize()
        _CYCLES_PER_MS = 10_000_000 / max(start.elapsed_time(end), 1e-3)
    torch.cuda._sleep(int(_CYCLES_PER_MS * ms))


_CYCLES_PER_MS: float | None = None


def g25(t: Target) -> str:
    return outcome(lambda: t.cpu_variant([1], device="cuda"))


def g26(t: Target) -> str:
    return outcome(lambda: t.async_tensor_h2d(torch.tensor([1], device="cuda"), device="cuda"))


def g27(t: Target, threads: int = 8, calls: int = 2000, batch: int = 32) -> str:
    """8 threads, each on its own stream, uploading distinct 4096-element arrays; mismatches counted on the device."""
    bad = [0]
    errors: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(threads)

    def work(k: int) -> None:
        try:
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                barrier.wait()
                for start in range(0, calls, batch):
                    pending = []
                    for i in range(start, start + batch):
                        src = np.arange(4096, dtype=np.int32) + (k * 1_000_000 + i * 4096)
                        pending.append((t.async_tensor_h2d(src, device="cuda"), int(src[0])))
                    base = torch.arange(4096, dtype=torch.int32, device="cuda")
                    n = sum(int(not torch.equal(r, base + first)) for r, first in pending)
                    stream.synchronize()
                    if n:
                        with lock:
                            bad[0] += n
        except Exception as exc:  # noqa: BLE001
            errors.append(f"{type(exc).__name__}: {exc}")

    ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for th in ts:
        th.start()
    for th in ts:
        th.join()
    torch.cuda.synchronize()
    return f"errors {errors[:1]}" if errors else f"mismatching results: {'none' if not bad[0] else 'some'}"


def g28(t: Target) -> str:
    u = t.buffer_utils.UvaBuffer(1024, torch.int32)
    u.np[:] = 1
    v = u.uva()
    del u
    gc.collect()
    other = torch.empty(1024, dtype=torch.int32, pin_memory=True).fill_(2)  # the caching host allocator's freed block
    res = f"view reads {sorted(set(v.clone().cpu().tolist()))}"
    del other
    return res


def g29(t: Target) -> str:
    s = t.buffer_utils.StagedWriteTensor(4, torch.int32, "cuda", uva_instead_of_gpu=True)
    torch.cuda.synchronize()
    _busy(100)
    reader = s.gpu.clone()  # queued behind the busy work: runs after the host continues
    s.stage_write(0, 0, [7])
    s.apply_write()
    torch.cuda.synchronize()
    return f"reader queued before apply_write read {reader.tolist()}"


def g30(t: Target) -> str:
    b = t.buffer_utils.NonUvaBuffer(1 << 20, torch.int32, "cuda")
    b.np[:] = 1
    torch.cuda.synchronize()
    _busy(100)
    v = b.uva()
    b.np[:] = 2  # the host refills right after the call
    torch.cuda.synchronize()
    return f"uva() result holds {sorted(set(v.cpu().tolist()))}"


GPU_CASES: list[tuple[str, Callable[[Target], str], str]] = [
    ("b25_cpu_variant_delegates_to_main", g25, "raises ValueError"),
    ("b26_cuda_data_accepted", g26, "raises ValueError"),
    ("b27_small_pool_lock_narrowed", g27, "mismatching results: none"),
    ("b28_uva_view_does_not_own_memory", g28, "view reads [1]"),
    ("b29_staged_uva_written_from_host", g29, "reader queued before apply_write read [0, 0, 0, 0]"),
    ("b30_nonuva_fallback_pinned", g30, "uva() result holds [1]"),
]


# -- host calls of the GPU-only bugs: the same as the reference without CUDA ---------------


def h25(t: Target) -> str:
    return " / ".join(
        [
            outcome(lambda: t.cpu_variant([1], device="cuda")),
            outcome(lambda: t.cpu_variant([1, 2], device="cpu")),
            outcome(lambda: t.cpu_variant([1], device="meta")),
        ]
    )


def h26(t: Target) -> str:
    return " / ".join(
        [
            outcome(lambda: t.async_tensor_h2d(torch.empty(1, device="meta"), device="cpu")),
            outcome(lambda: t.async_tensor_h2d(torch.tensor([3]), device="cpu")),
        ]
    )


def h27(t: Target) -> str:
    return outcome(lambda: t.async_tensor_h2d(np.arange(4096, dtype=np.int32), device="cpu").sum())


def h28(t: Target) -> str:
    return outcome(lambda: t.buffer_utils.UvaBuffer(4, torch.int32))


def h29(t: Target) -> str:
    s = t.buffer_utils.StagedWriteTensor(4, torch.int32, "cpu", uva_instead_of_gpu=True)
    s.stage_write(0, 0, [7])
    s.apply_write()
    return show(s.gpu)


def h30(t: Target) -> str:
    b = t.buffer_utils.NonUvaBuffer(4, torch.int32, "cpu")
    b.np[:] = 1
    v = b.uva()
    b.np[:] = 2
    return f"{show(v)} pinned={b.cpu.is_pinned()}"


HOST_OF_GPU: dict[str, Callable[[Target], str]] = {
    "b25_cpu_variant_delegates_to_main": h25,
    "b26_cuda_data_accepted": h26,
    "b27_small_pool_lock_narrowed": h27,
    "b28_uva_view_does_not_own_memory": h28,
    "b29_staged_uva_written_from_host": h29,
    "b30_nonuva_fallback_pinned": h30,
}


def load(name: str) -> Target:
    return importlib.import_module(f"r36.{name}").target()


def main() -> int:
    failures = 0
    control = load("b00_control")
    print(f"torch {torch.__version__}, numpy {np.__version__}, CUDA available: {CUDA}\n")

    print("== CPU bugs: bug target vs the reference on the smallest input ==")
    buggy = 0
    for name, probe, expected in CPU_CASES:
        ref = probe(REF)
        bug = probe(load(name))
        ok = ref == expected and bug != ref
        buggy += ok
        failures += not ok
        print(f"{'BUGGY' if ok else 'NOT SHOWN'}  {name}\n    reference: {ref}\n    bug:       {bug}")
        if ref != expected:
            print(f"    (the reference did not give its documented outcome: {expected})")
    print(f"\nCPU bugs BUGGY: {buggy} of {len(CPU_CASES)}\n")

    print("== control (b00_control) on every CPU probe: must equal the reference ==")
    diffs = 0
    for name, probe, _ in CPU_CASES:
        ref, ctl = probe(REF), probe(control)
        if ref != ctl:
            diffs += 1
            print(f"DIFFERS  probe of {name}: reference {ref}; control {ctl}")
    failures += diffs
    print(f"control: {'no difference' if not diffs else f'{diffs} differences'} on {len(CPU_CASES)} probes\n")

    print("== GPU-only bugs ==")
    if not CUDA:
        print("SKIPPED (no CUDA): their reproductions need a CUDA device; here their host calls match the reference:")
        for name, probe in HOST_OF_GPU.items():
            ref, bug = probe(REF), probe(load(name))
            same = ref == bug
            failures += not same
            print(f"  {'same on the host' if same else 'DIFFERS ON THE HOST'}  {name}: {bug}")
    else:
        gbuggy = 0
        for name, probe, expected in GPU_CASES:
            ref = probe(REF)
            bug = probe(load(name))
            ctl = probe(control)
            ok = ref == expected and bug != ref
            gbuggy += ok
            failures += not ok or ctl != ref
            print(f"{'BUGGY' if ok else 'NOT SHOWN'}  {name}\n    reference: {ref}\n    bug:       {bug}\n    control:   {ctl}")
        print(f"\nGPU bugs BUGGY: {gbuggy} of {len(GPU_CASES)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
