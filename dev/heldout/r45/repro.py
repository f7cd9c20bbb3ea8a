"""Round r45: run every bug's smallest input against the bug, the control (b00) and the plain reference.

    cd /tmp/r45/author && PYTHONPATH=/tmp/r45/author python -m r45.repro

For each CPU bug: BUGGY when the bug's outcome differs from the control's, OK when it does not.
For each GPU-only bug: SKIP with the reason, after showing that on this CPU host the bug gives
exactly the control's outcomes (its CPU-side inputs). Every case also checks that the control
gives exactly the plain reference's (``h2d_contracts.h2d_impl`` unforked) outcome.
"""

from __future__ import annotations

import gc
import hashlib
import importlib
import sys
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import plumbing  # noqa: F401  (r45/__init__ sets plumbing.ROUND)
from h2d_contracts import h2d_impl
from plumbing import make_target


# --------------------------------------------------------------------------- outcomes


def summ(x: Any) -> Any:
    """A comparable summary of a result (tensors by dtype, shape, values or a digest, inference flag)."""
    if isinstance(x, torch.Tensor):
        t = x.detach()
        flags = (t.is_inference(), t.requires_grad)
        if t.numel() > 16:
            raw = t.contiguous()
            if raw.dtype in (torch.bfloat16,):
                raw = raw.view(torch.int16)
            digest = hashlib.sha1(raw.numpy().tobytes()).hexdigest()[:12]
            return ("tensor", str(t.dtype), tuple(t.shape), "sha1:" + digest, flags)
        return ("tensor", str(t.dtype), tuple(t.shape), repr(t.tolist()), flags)
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.shape, repr(x.tolist()))
    if isinstance(x, (list, tuple)):
        return tuple(summ(v) for v in x)
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if hasattr(x, "cpu") and isinstance(getattr(x, "cpu"), torch.Tensor):  # a buffer object
        return (type(x).__name__, summ(x.cpu))
    return type(x).__name__


def attempt(fn: Callable[[], Any]) -> Any:
    """``("ok", summary)`` or ``("raise", exception type, first line of the message)``."""
    try:
        return ("ok", summ(fn()))
    except Exception as exc:  # noqa: BLE001
        return ("raise", type(exc).__name__, str(exc).splitlines()[0][:160] if str(exc) else "")


# --------------------------------------------------------------------------- scenarios (one per bug)


def s01(t):
    a = np.arange(40000, dtype=np.int32)
    return attempt(lambda: t.async_tensor_h2d(a, device="cpu")), attempt(lambda: t.async_tensor_h2d(a, device="cpu"))


def s02(t):
    base = torch.arange(3.0)
    r = attempt(lambda: t.async_tensor_h2d(base[:2], out=base[1:]))
    return r, base.tolist()


def s03(t):
    x = torch.tensor([1, 2])
    v = x._version
    r = t.async_tensor_h2d(x, out=x)
    return r is x, x._version - v, x.tolist()


def s04(t):
    with torch.inference_mode():
        o = torch.zeros(1)
    r = attempt(lambda: t.cpu_variant([5.0], out=o))
    return r, o.tolist()


def s05(t):
    o = torch.tensor(0)
    return attempt(lambda: t.async_tensor_h2d(5, out=o)), o.tolist()


def s06(t):
    first = attempt(lambda: t.async_tensor_h2d([1.5], device="cpu"))
    second = attempt(lambda: t.async_tensor_h2d([300], dtype=torch.int8, device="cpu"))
    return first, second


def s07(t):
    return attempt(lambda: t.async_tensor_h2d([2**63], device="cpu"))


def s08(t):
    return attempt(lambda: t.async_tensor_h2d([[300]], dtype=torch.int8, device="cpu"))


def s09(t):
    return attempt(lambda: t.async_tensor_h2d(np.array([1, 2], dtype=">i4"), device="cpu"))


def s10(t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = attempt(lambda: t.async_tensor_h2d([1 + 2j], dtype=torch.float32, device="cpu"))
    return r, tuple(str(w.message).splitlines()[0][:60] for w in caught)


def s11(t):
    return (
        attempt(lambda: t.async_tensor_h2d(1.5, dtype=torch.int32, device="cpu")),
        attempt(lambda: t.async_tensor_h2d([[1.5, 2.5]], dtype=torch.int32, device="cpu")),
    )


def s12(t):
    b = t.buffer_cls(2, dtype=torch.int32, device="cpu")
    return attempt(lambda: b.copy_to_gpu(torch.tensor([1])))


def s13(t):
    b = t.buffer_cls(2, dtype=torch.int32, device="cpu")
    b.copy_to_gpu(1)
    r = attempt(lambda: b.copy_to_gpu(True))
    d = t.buffer_cls(2, dtype=torch.int32, device="cpu")
    d.copy_to_gpu(1)
    ref = weakref.ref(d)
    del d
    gc.collect()
    return r, "buffer still alive after del + gc" if ref() is not None else "buffer freed"


def s14(t):
    b = t.buffer_cls(2, dtype=torch.int32, device="cpu")
    b.gpu.fill_(7)
    b.copy_to_gpu(1)
    return b.gpu.tolist()


def s15(t):
    return attempt(lambda: t.buffer_utils.UvaBuffer(4, torch.int32))


def s16(t):
    s = t.buffer_utils.StagedWriteTensor(2, torch.int32, "cpu")
    s.stage_write(0, 0, [2**31])
    return attempt(s.apply_write), s.gpu.tolist()


# GPU-only bugs: the CPU-side inputs (they must give the control's outcome here)


def s17(t):
    return (
        attempt(lambda: t.async_tensor_h2d(torch.tensor([7], dtype=torch.int32), device="cpu")),
        attempt(lambda: t.async_tensor_h2d(torch.tensor([float("nan")], dtype=torch.float32), device="cpu")),
        attempt(lambda: t.async_tensor_h2d(torch.tensor([7], dtype=torch.int32), device="cuda:0")),
    )


def s18(t):
    return (
        attempt(lambda: t.async_tensor_h2d(np.arange(300000, dtype=np.int32), device="cpu")),
        attempt(lambda: t.async_tensor_h2d(np.arange(300000, dtype=np.int32), device="cuda:0")),
    )


def s19(t):
    b = t.buffer_cls(4, dtype=torch.int32, device="cpu", pin_memory=True)
    b.gpu.fill_(5)
    r = b.copy_to_cpu()
    b.gpu.fill_(6)
    r2 = b.copy_to_cpu(2)
    return b.cpu.tolist(), r is b.cpu, summ(r2)


def s20(t):
    b = t.buffer_cls(2, dtype=torch.int32, device="cpu")
    b.cpu.fill_(3)
    return b.cpu.is_pinned(), b.copy_to_gpu().tolist()


CPU_CASES = {
    "b01_errstate_hoisted_default_arg": s01,
    "b02_overlap_cloned_not_refused": s02,
    "b03_self_copy_skipped": s03,
    "b04_cpu_variant_under_inference_mode": s04,
    "b05_len_as_emptiness_test": s05,
    "b06_integer_dtypes_one_shot_filter": s06,
    "b07_dtype_inference_fallback_for_all_lists": s07,
    "b08_error_index_percent_format": s08,
    "b09_numpy_fast_path_precedence": s09,
    "b10_complex_refusal_raise_dropped": s10,
    "b11_builtin_any_on_mask": s11,
    "b12_row_count_numel_not_dim": s12,
    "b13_buffer_rows_memoised": s13,
    "b14_copy_to_gpu_zeroes_tail_rows": s14,
    "b15_uva_buffer_error_deferred": s15,
    "b16_staged_contents_via_torch_tensor": s16,
}

GPU_CASES = {
    "b17_pinned_scalar_sent_as_fill": (
        s17,
        "h2d._to_device runs only for CUDA targets (a pinned 1-element tensor: fill kernel instead of a DMA)",
    ),
    "b18_pool_wait_syncs_stream": (
        s18,
        "staging pools are used only for CUDA targets (the wait syncs the whole stream)",
    ),
    "b19_copy_to_cpu_reads_async_temp": (
        s19,
        "on a CPU .to('cpu', non_blocking=True) is the tensor itself; on CUDA it is an async D2H read too early",
    ),
    "b20_buffer_pin_default_false": (
        s20,
        "pinning is unavailable on this host, so the default (None or False) gives a pageable .cpu either way",
    ),
}


# --------------------------------------------------------------------------- driver


def load(name: str):
    return importlib.import_module(f"r45.{name}").target()


def main() -> int:
    control_mod = "b00_control"
    plain = make_target("plain_reference", buffer_utils=h2d_impl.buffer_utils)
    counts = {"BUGGY": 0, "OK": 0, "SKIP": 0, "CONTROL-MISMATCH": 0, "GPU-DIFFERS-ON-CPU": 0}

    # every target builds and copies [1, 2]
    for name in ["b00_control", *CPU_CASES, *GPU_CASES]:
        t = load(name)
        got = t.async_tensor_h2d([1, 2], device="cpu").tolist()
        assert got == [1, 2], (name, got)
    print("all 21 targets build; async_tensor_h2d([1, 2], device='cpu') == [1, 2] for each")
    print()

    for name, scen in CPU_CASES.items():
        bug = scen(load(name))
        ctl = scen(load(control_mod))
        ref = scen(plain)
        if ctl != ref:
            counts["CONTROL-MISMATCH"] += 1
            print(f"{name}: CONTROL-MISMATCH control={ctl!r} reference={ref!r}")
        verdict = "BUGGY" if bug != ctl else "OK"
        counts[verdict] += 1
        print(f"{name}: {verdict}")
        print(f"    control (= reference: {ctl == ref}): {ctl!r}")
        print(f"    bug:                               {bug!r}")

    for name, (scen, reason) in GPU_CASES.items():
        bug = scen(load(name))
        ctl = scen(load(control_mod))
        ref = scen(plain)
        if ctl != ref:
            counts["CONTROL-MISMATCH"] += 1
            print(f"{name}: CONTROL-MISMATCH control={ctl!r} reference={ref!r}")
        same = bug == ctl
        if not same:
            counts["GPU-DIFFERS-ON-CPU"] += 1
        counts["SKIP"] += 1
        print(f"{name}: SKIP (GPU-only: {reason})")
        print(f"    on this CPU host the bug gives the control's outcome: {same}")
        print(f"    control (= reference: {ctl == ref}): {ctl!r}")
        if not same:
            print(f"    bug:                               {bug!r}")

    print()
    print(
        "summary: BUGGY {BUGGY} of 16 CPU bugs, OK {OK}, SKIP {SKIP} GPU-only bugs "
        "({GPU-DIFFERS-ON-CPU} differ on the CPU), control mismatches {CONTROL-MISMATCH}".format(**counts)
    )
    ok = counts["BUGGY"] == len(CPU_CASES) and not counts["CONTROL-MISMATCH"] and not counts["GPU-DIFFERS-ON-CPU"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
