"""The GPU-only bugs of round r52 on a CUDA host (not run by ``repro.py``, which is for a CPU-only host).

Run from ``dev/heldout`` on a machine with one CUDA device, the kit installed::

    python -m r52.gpu_check

For each GPU-only bug (b11-b16): its CUDA input (from the module's docstring) on a fresh control
(``b00_control``) and a fresh bug target, in that order; asserted: the control's outcome is the
reference outcome stated, and the bug's differs. ``torch.cuda._sleep`` queues busy work where
a bug needs the stream to be behind the host. Output: ``gpu_check_output.txt`` when saved.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import r52  # noqa: F401  (sets plumbing.ROUND)
from r52.repro import outcome, raised, same, short

I32 = torch.int32
SLEEP = int(1e9)  # cycles: about half a second of queued work


def _b11(t):
    p = t.buffer_utils.UvaBufferPool(4, I32)
    x = torch.tensor([1, 2], dtype=I32, device="cuda")
    torch.cuda.synchronize()
    torch.cuda._sleep(SLEEP)
    t0 = time.perf_counter()
    res = outcome(lambda: p.copy_to_uva(x).clone())
    waited = time.perf_counter() - t0 > 0.1
    torch.cuda.synchronize()
    return {"copy_to_uva(cuda tensor)": res, "waited for the stream": waited}


def _b12(t):
    s = t.buffer_utils.StagedWriteTensor(4, I32, "cuda", uva_instead_of_gpu=True)
    s.stage_write_elem(1, 7)
    s.apply_write()
    torch.cuda.synchronize()
    return {
        ".gpu.device": str(s.gpu.device),
        ".gpu + ones(cuda)": outcome(lambda: s.gpu + torch.ones(4, dtype=I32, device="cuda")),
    }


def _b13(t):
    bu = t.buffer_utils
    s = bu.StagedWriteTensor(4, I32, "cuda")
    s.stage_write_elem(1, 7)
    ptrs = torch.tensor([s.gpu.data_ptr()], dtype=torch.uint64, device="cuda")
    strides = torch.tensor([1], device="cuda")
    torch.cuda.synchronize()
    torch.cuda._sleep(SLEEP)
    res = outcome(lambda: bu.FusedStagedWriter("cuda", 1).apply([s], ptrs, strides))
    torch.cuda.synchronize()
    return {"apply": res, ".gpu": s.gpu}


def _b14(t):
    b = t.buffer_utils.UvaBuffer(4, I32)
    return {f"uva({n!r})": outcome(lambda n=n: b.uva(n)) for n in (5, -1, True, 2)}


def _b15(t):
    p = t.buffer_utils.UvaBufferPool(1, I32, 1)
    torch.cuda.synchronize()
    torch.cuda._sleep(SLEEP)
    v = p.copy_to_uva(np.array([1, 2, 3], np.int32))
    r = v.clone()
    torch.cuda.synchronize()
    b = t.buffer_utils.UvaBuffer(4, I32)
    torch.cuda.synchronize()
    torch.cuda._sleep(SLEEP)
    b2 = t.buffer_utils.UvaBuffer(4, I32)
    b2.np[:] = [1, 2, 3, 4]
    torch.cuda.synchronize()
    return {"grown slot read": r, "fresh buffer": b.cpu.clone(), "np written after construction": b2.cpu.clone()}


def _b16(t):
    a = t.async_tensor_h2d([1], dtype=I32, device="cuda")
    r = t.async_tensor_h2d([1.5], device="cuda")
    bu = t.buffer_utils
    si = bu.StagedWriteTensor(2, I32, "cuda")
    sf = bu.StagedWriteTensor(2, torch.float32, "cuda")
    si.stage_write_elem(0, 3)
    si.apply_write()
    sf.stage_write_elem(1, 2.5)
    applied = outcome(sf.apply_write)
    torch.cuda.synchronize()
    return {"first": a, "second": r, "float32 apply after int32": applied, "sf.gpu": sf.gpu}


def _t(vals: Any, dtype: str = "torch.int32") -> tuple[Any, ...]:
    return ("tensor", dtype, np.array(vals).shape, vals)


CASES: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], bool]]] = {
    "b11_pool_device_tensor_accepted": (
        "behind _sleep: UvaBufferPool(4, torch.int32).copy_to_uva(torch.tensor([1, 2], dtype=torch.int32, device='cuda'))",
        _b11,
        lambda o: (
            o[0] == "ok" and raised(o[1]["copy_to_uva(cuda tensor)"], "TypeError") and not o[1]["waited for the stream"]
        ),
    ),
    "b12_staged_uva_gpu_is_pinned_host": (
        "t = StagedWriteTensor(4, torch.int32, 'cuda', uva_instead_of_gpu=True); t.stage_write_elem(1, 7); t.apply_write(); t.gpu.device; t.gpu + ones",
        _b12,
        lambda o: same(o, ("ok", {".gpu.device": "cuda:0", ".gpu + ones(cuda)": ("ok", _t([1, 8, 1, 1]))})),
    ),
    "b13_fused_tables_read_non_blocking": (
        "device tables; behind _sleep: FusedStagedWriter('cuda', 1).apply([t], ptrs, strides); sync; t.gpu",
        _b13,
        lambda o: same(o, ("ok", {"apply": ("ok", None), ".gpu": _t([0, 7, 0, 0])})),
    ),
    "b14_uva_rows_by_narrow": (
        "b = UvaBuffer(4, torch.int32); b.uva(5), b.uva(-1), b.uva(True), b.uva(2)",
        _b14,
        lambda o: (
            o[0] == "ok"
            and raised(o[1]["uva(5)"], "IndexError")
            and raised(o[1]["uva(-1)"], "IndexError")
            and raised(o[1]["uva(True)"], "TypeError")
            and same(o[1]["uva(2)"], ("ok", _t([0, 0])))
        ),
    ),
    "b15_uva_buffer_zeroed_on_device": (
        "p = UvaBufferPool(1, torch.int32, 1); behind _sleep: v = p.copy_to_uva(np.array([1, 2, 3], np.int32)); r = v.clone(); sync; r",
        _b15,
        lambda o: same(
            o,
            (
                "ok",
                {
                    "grown slot read": _t([1, 2, 3]),
                    "fresh buffer": _t([0, 0, 0, 0]),
                    "np written after construction": _t([1, 2, 3, 4]),
                },
            ),
        ),
    ),
    "b16_chunk_views_by_itemsize": (
        "async_tensor_h2d([1], dtype=torch.int32, device='cuda'); async_tensor_h2d([1.5], device='cuda')",
        _b16,
        lambda o: same(
            o,
            (
                "ok",
                {
                    "first": _t([1]),
                    "second": _t([1.5], "torch.float32"),
                    "float32 apply after int32": ("ok", None),
                    "sf.gpu": _t([0.0, 2.5], "torch.float32"),
                },
            ),
        ),
    ),
}


def main() -> int:
    assert torch.cuda.is_available(), "this check needs a CUDA device"
    print(f"torch {torch.__version__}, numpy {np.__version__}, device {torch.cuda.get_device_name()}")
    failed: list[str] = []
    for name, (text, case, expect) in CASES.items():
        control = importlib.import_module("r52.b00_control").target()
        bug = importlib.import_module(f"r52.{name}").target()
        ref = outcome(lambda case=case, control=control: case(control))
        torch.cuda.synchronize()
        got = outcome(lambda case=case, bug=bug: case(bug))
        torch.cuda.synchronize()
        status = "CONTROL-WRONG" if not expect(ref) else ("DIFFER" if not same(ref, got) else "SAME")
        print(f"{name} | GPU {status} | control: {short(ref, 400)} | bug: {short(got, 400)} | input: {text}")
        if status != "DIFFER":
            failed.append(f"{name} ({status})")
    print()
    if failed:
        print(f"FAILED: {failed}")
        return 1
    print(f"all {len(CASES)} GPU-only bugs differ from the control on CUDA; the control gives every reference outcome")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
