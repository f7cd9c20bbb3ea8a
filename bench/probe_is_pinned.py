"""What ``Tensor.is_pinned()`` costs behind a busy stream, and what else could tell pinned from pageable (needs a GPU).

bench/probe_variants.py on the H200 (reports/bench/2026-12-01_h200_9937744_probe_variants/)
had a pinned ``torch.empty`` + ``copy_`` + ``.to`` of 1 MiB take 0.057 ms behind 100 ms of
queued work, and vLLM's function, the same plus one ``t.is_pinned()``, 0.334 ms. This
script times, idle and behind the busy stream, for pageable and pinned tensors:
``Tensor.is_pinned()``; the driver's ``cuPointerGetAttribute(MEMORY_TYPE)`` and the runtime's
``cudaPointerGetAttributes`` through ctypes; and, for the small-list row, the reference's
phases of one call (validation, staging slice, host copy, the DMA call).

    python bench/probe_is_pinned.py --out FILE.md
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import sys
import time
from typing import Any, Callable

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import h2d_impl  # noqa: E402
from h2d_impl import _staging  # noqa: E402
from h2d_impl import h2d as _h2d  # noqa: E402

DEV = torch.device("cuda", 0)


def _cuda_libs() -> tuple[Any, Any]:
    drv = ctypes.CDLL("libcuda.so.1")
    rt = None
    for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
        try:
            rt = ctypes.CDLL(name)
            break
        except OSError:
            continue
    return drv, rt


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/probe_is_pinned.md")
    args = ap.parse_args()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); torch.cuda._sleep(1_000_000); e.record(); e.synchronize()
    cpm = 1_000_000 / s.elapsed_time(e)
    drv, rt = _cuda_libs()
    L = [f"# is_pinned and friends, {torch.cuda.get_device_name(0)}, torch {torch.__version__}, {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}", ""]
    L.append("torch._C names with 'inned' or 'ost': " + ", ".join(n for n in dir(torch._C) if "inned" in n or "ost" in n.lower()))
    L.append("")

    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2

    def cu_type(ptr: int) -> int:
        v = ctypes.c_uint(0)
        rc = drv.cuPointerGetAttribute(ctypes.byref(v), CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ctypes.c_uint64(ptr))
        return v.value if rc == 0 else -rc

    attr = (ctypes.c_byte * 64)()

    def rt_attrs(ptr: int) -> int:
        rc = rt.cudaPointerGetAttributes(attr, ctypes.c_void_p(ptr))
        if rc:
            rt.cudaGetLastError()
        return int.from_bytes(bytes(attr[:4]), "little") if rc == 0 else -rc

    tensors = {f"pageable {n >> 10} KiB": torch.empty(n, dtype=torch.uint8) for n in (4 << 10, 1 << 20, 16 << 20)}
    tensors["pinned 1 MiB (CHA)"] = torch.empty(1 << 20, dtype=torch.uint8, pin_memory=True)
    checks: dict[str, Callable[[torch.Tensor], Any]] = {"Tensor.is_pinned()": lambda t: t.is_pinned()}
    checks["cuPointerGetAttribute(MEMORY_TYPE)"] = lambda t: cu_type(t.data_ptr())
    if rt is not None:
        checks["cudaPointerGetAttributes"] = lambda t: rt_attrs(t.data_ptr())
    L += ["## One check, host us: idle median of 200 / behind 100 ms queued, each of 7 reps", "", "| tensor | check | result | idle us | busy us (7 reps) |", "|---|---|---|---|---|"]
    for label, t in tensors.items():
        for cname, chk in checks.items():
            res = chk(t)
            idle = []
            for _ in range(200):
                t0 = time.perf_counter_ns(); chk(t); idle.append(time.perf_counter_ns() - t0)
            busy = []
            for _ in range(7):
                torch.cuda.synchronize(); torch.cuda._sleep(int(100 * cpm))
                t0 = time.perf_counter_ns(); chk(t); busy.append(time.perf_counter_ns() - t0)
                torch.cuda.synchronize()
            L.append(f"| {label} | {cname} | {res} | {statistics.median(idle) / 1e3:.2f} | " + ", ".join(f"{b / 1e3:.1f}" for b in busy) + " |")
    L.append("")

    # phases of a small list call, idle, medians of 2000
    L += ["## Phases of the reference's small call, idle stream (us, median of 2000)", "", "| input | phase | us |", "|---|---|---|"]
    for label, data in {"list n=1": [7], "list n=16": list(range(16)), "tensor n=16": torch.arange(16, dtype=torch.int32)}.items():
        src, dt, tgt = _h2d._prepare(data, DEV, None, None, cpu_only=False)
        pool = _staging.pool_for(DEV, _staging.SMALL_CHUNK_BYTES, True, small=True)
        nbytes = src.numel() * dt.itemsize
        with pool.lock:
            stg = pool.small_tensor(src.shape, dt, nbytes)
        phases: dict[str, Callable[[], Any]] = {
            "whole call": lambda: h2d_impl.async_tensor_h2d(data, DEV),
            "_prepare": lambda: _h2d._prepare(data, DEV, None, None, cpu_only=False),
            "pool_for + lock + small_tensor": lambda: (lambda p: (p.lock.acquire(), p.small_tensor(src.shape, dt, nbytes), p.lock.release()))(_staging.pool_for(DEV, _staging.SMALL_CHUNK_BYTES, True, small=True)),
            "staging.copy_": lambda: stg.copy_(src),
            "_dma (.to copy=True)": lambda: _h2d._dma(stg, DEV, None),
            "vllm-like torch.tensor(pin_memory=True).to": lambda: torch.tensor(data, pin_memory=True).to(DEV, non_blocking=True) if isinstance(data, list) else data,
            "_cuda_device_count + pin_memory_available": lambda: (_h2d._cuda_device_count(), h2d_impl._host.pin_memory_available()),
        }
        for pname, fn in phases.items():
            times = []
            for i in range(2000):
                t0 = time.perf_counter_ns(); fn(); times.append(time.perf_counter_ns() - t0)
                if i % 256 == 255:
                    torch.cuda.synchronize()
            L.append(f"| {label} | {pname} | {statistics.median(times) / 1e3:.2f} |")
    with open(args.out, "w") as fh:
        fh.write("\n".join(L) + "\n")
    print("\n".join(L))
    return 0


if __name__ == "__main__":
    sys.exit(main())
