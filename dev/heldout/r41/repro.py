"""Round r41: each bug's smallest input against its target, the control and the plain reference.

Run from /tmp/r41/author: ``python -m r41.repro`` (or ``python r41/repro.py``). On this CPU host
every CPU-visible bug must give a result that differs from the reference (BUGGY), and the
control (b00) must give the reference's result on every scenario (OK). GPU-only bugs run
their scenario only where CUDA and pinned memory are available; elsewhere they are listed
as skipped.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from typing import Any, Callable

import numpy as np
import torch

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "r41"

from h2d_contracts.h2d_impl import buffer_utils as REF  # noqa: E402

i32, i64 = torch.int32, torch.int64


def _out(fn: Callable[[], Any]) -> str:
    """The outcome of ``fn()``: its value (tensors as lists) or the exception's type and message."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = fn()
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {str(e).splitlines()[0][:90]}"
    return _fmt(v)


def _fmt(v: Any) -> str:
    if isinstance(v, torch.Tensor):
        return f"{v.tolist()}"
    if isinstance(v, tuple):
        return "(" + ", ".join(_fmt(x) for x in v) + ")"
    return repr(v)


def _ptrs(*ts):
    return torch.tensor([t.gpu.data_ptr() for t in ts], dtype=torch.uint64)


def _strides(*ts):
    return torch.tensor([t.gpu.stride(0) for t in ts], dtype=torch.int64)


# ---- scenarios: ns is a namespace of the six classes (the reference module, or a target's buffer_utils)


def s01(ns):
    t = ns.StagedWriteTensor(2, i32, "cpu")
    staged = _out(lambda: t.stage_write(-1, 0, [7]))
    t.apply_write()
    return f"stage_write(-1, 0, [7]) -> {staged}; gpu={t.gpu.tolist()}"


def s02(ns):
    t = ns.StagedWriteTensor(2, i32, "cpu")
    staged = _out(lambda: t.stage_write(np.int64(2**32 + 1), 0, [7]))
    t.apply_write()
    return f"stage_write(np.int64(2**32+1), 0, [7]) -> {staged}; gpu={t.gpu.tolist()}"


def s03(ns):
    t = ns.StagedWriteTensor((1, 4), i32, "cpu")
    staged = _out(lambda: t.stage_write(0, np.int64(2**63 - 1), [1]))
    applied = _out(t.apply_write)
    return f"stage_write(0, np.int64(2**63-1), [1]) -> {staged}; apply_write -> {applied}; gpu={t.gpu.tolist()}"


def s04(ns):
    t = ns.StagedWriteTensor(2, i64, "cpu")
    staged = _out(lambda: t.stage_write(1, 0, (v for v in [5])))
    t.apply_write()
    return f"stage_write(1, 0, generator of [5]) -> {staged}; gpu={t.gpu.tolist()}"


def s05(ns):
    t = ns.StagedWriteTensor(4, i32, "cpu")
    t.stage_write_elem(0, 5)
    t.apply_write()
    t.stage_write_elem(2, 7)
    t.apply_write()
    return f"gpu={t.gpu.tolist()}"


def s06(ns):
    t = ns.StagedWriteTensor((2, 2), i32, "cpu")
    staged = _out(lambda: t.stage_write_elem(1, 5))
    t.apply_write()
    return f"stage_write_elem(1, 5) -> {staged}; gpu={t.gpu.tolist()}"


def s07(ns):
    t = ns.StagedWriteTensor(3, i32, "cpu")
    for row, v in ((2, 1), (1, 2), (0, 3), (0, 4)):
        t.stage_write_elem(row, v)
    t.apply_write()
    return f"gpu={t.gpu.tolist()}"


def s08(ns):
    t = ns.StagedWriteTensor(2, i32, "cpu")
    t.stage_write_elem(0, 5)
    applied = _out(t.apply_write)
    return f"apply_write -> {applied}; gpu={t.gpu.tolist()}"


def s09(ns):
    a, b = ns.StagedWriteTensor(2, i32, "cpu"), ns.StagedWriteTensor(2, i32, "cpu")
    a.stage_write_elem(0, 5)
    w = ns.FusedStagedWriter("cpu", 1)
    applied = _out(lambda: w.apply([a, b], _ptrs(a, b), _strides(a, b)))
    return f"apply -> {applied}; a={a.gpu.tolist()} b={b.gpu.tolist()}"


def s10(ns):
    a, b = ns.StagedWriteTensor(2, i32, "cpu"), ns.StagedWriteTensor(2, i32, "cpu")
    a.stage_write_elem(0, 5)
    w = ns.FusedStagedWriter("cpu", 1)
    applied = _out(lambda: w.apply([a, b], _ptrs(b, a), _strides(a, b)))
    return f"apply(ptrs swapped) -> {applied}; a={a.gpu.tolist()} b={b.gpu.tolist()}"


def s11(ns):
    p = ns.UvaBufferPool(1, i32, 2)
    b = p.copy_to_uva([1, 2])
    p.copy_to_uva([3, 4])
    return f"first reader after one more call: {b.tolist()}"


def s12(ns):
    return _out(lambda: ns.UvaBufferPool(2, i32).copy_to_uva([5, 6]))


def s13(ns):
    return _out(lambda: ns.UvaBufferPool(2, i32).copy_to_uva([1, 2, 3]))


def s14(ns):
    p = ns.UvaBufferPool(1, i32, 3)
    a = p.copy_to_uva([1])
    p.copy_to_uva([2])
    return f"depth 3, first reader after one more call: {a.tolist()}"


def s15(ns):
    p = ns.UvaBufferPool(1, i32, 2)
    a = p.copy_to_uva([1])
    g = p.copy_to_gpu([2])
    return f"depth 2, reader after one copy_to_gpu: {a.tolist()} (copy_to_gpu gave {g.tolist()})"


def s16(ns):
    p = ns.UvaBufferPool(1, i32, 5)
    a = p.copy_to_uva([1])
    for k in range(2, 6):
        p.copy_to_uva([k])
    return f"depth 5, reader after four more calls: {a.tolist()}; max_concurrency={p.max_concurrency}"


def s17(ns):
    t = ns.UvaBackedTensor(2, i32)
    t.np[:] = [1, 2]
    t.copy_to_uva(1)
    return f"copy_to_uva() after copy_to_uva(1): {t.copy_to_uva().tolist()}"


def s18(ns):
    t = ns.UvaBackedTensor(2, i32)
    r = t.copy_to_uva()
    return f"copy_to_uva() is .gpu: {r is t.gpu}"


def g19(ns):
    b = ns.UvaBuffer(4, i32)
    v = b.uva(4)
    torch.cuda.synchronize()
    b.np[:] = 7
    return f"uva(4) read after the host wrote 7s: sum={int(v.sum().item())}"


def g20(ns):
    p = ns.UvaBufferPool(2, i32, 1)
    for k in range(2, 8):
        p.copy_to_uva(list(range(2**k)))
        torch.cuda.synchronize()
    return f"retired slots held after six drained growths: {len(p._retired)}"


SCENARIOS: dict[str, tuple[Callable[[Any], str], bool]] = {
    "b01_staged_negative_index_wraps": (s01, False),
    "b02_staged_index_int32_narrowed": (s02, False),
    "b03_staged_bounds_before_int": (s03, False),
    "b04_staged_generator_scanned_twice": (s04, False),
    "b05_staged_clear_keeps_contents": (s05, False),
    "b06_staged_elem_args_swapped": (s06, False),
    "b07_staged_dedupe_unstable_argsort": (s07, False),
    "b08_staged_init_inference_mode": (s08, False),
    "b09_fused_ptrs_checked_against_pending": (s09, False),
    "b10_fused_ptrs_compared_as_sets": (s10, False),
    "b11_pool_growth_stored_in_current_slot": (s11, False),
    "b12_pool_view_taken_before_fill": (s12, False),
    "b13_pool_growth_shape_from_raw_size": (s13, False),
    "b14_pool_ring_mask_not_modulo": (s14, False),
    "b15_pool_copy_to_gpu_takes_two_slots": (s15, False),
    "b16_pool_depth_clamped": (s16, False),
    "b17_backed_none_sends_gpu_rows": (s17, False),
    "b18_backed_returns_clone": (s18, False),
    "b19_uva_buffer_view_is_dma_copy": (g19, True),
    "b20_pool_retired_prune_inverted": (g20, True),
}


def main() -> int:
    cuda = REF.uva_available()
    control = importlib.import_module(f"{__package__}.b00_control").target().buffer_utils
    print(f"r41 repro: torch {torch.__version__}, numpy {np.__version__}, CUDA+pinned (UVA): {cuda}")
    counts = {"BUGGY": 0, "NOT-BUGGY": 0, "skipped": 0, "control-OK": 0, "control-DIFFERS": 0}
    for name, (scenario, gpu_only) in SCENARIOS.items():
        print(f"\n== {name} ({'GPU-only' if gpu_only else 'CPU'})")
        if gpu_only and not cuda:
            print("   skipped: needs CUDA and pinned memory (GPU-only bug)")
            counts["skipped"] += 1
            continue
        mod = importlib.import_module(f"{__package__}.{name}")
        target = mod.target()
        assert target.buffer_utils is not None and "buffer-utils" in target.capabilities
        ref = _out(lambda: scenario(REF))
        ctl = _out(lambda: scenario(control))
        bug = _out(lambda: scenario(target.buffer_utils))
        print(f"   reference: {ref}")
        print(f"   control:   {ctl}   [{'OK' if ctl == ref else 'DIFFERS'}]")
        print(f"   bug:       {bug}")
        verdict = "BUGGY" if bug != ref else "NOT-BUGGY"
        print(f"   -> {verdict}")
        counts[verdict] += 1
        counts["control-OK" if ctl == ref else "control-DIFFERS"] += 1
    print(
        f"\nsummary: {counts['BUGGY']} BUGGY, {counts['NOT-BUGGY']} NOT-BUGGY, {counts['skipped']} skipped (GPU-only); "
        f"control equal to the reference on {counts['control-OK']} of {counts['control-OK'] + counts['control-DIFFERS']} scenarios"
    )
    return 0 if counts["NOT-BUGGY"] == 0 and counts["control-DIFFERS"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
