"""Round r38: the mechanisms of the GPU-only bugs, exercised on a CPU-only host.

    cd /work/r38_author && PYTHONPATH=. /work/main/.venv/bin/python r38/gpu_sim.py

The staging pools serve CUDA targets only, so b24-b28 cannot be observed through
``async_tensor_h2d(..., device="cpu")``. But the pools are written device-generically
(``_to_device`` and ``StagingPool`` take a host target and an optional simulated clock, as
the reference's own call-trace tests do), so each bug's mechanism is shown here on the
control's fork and on the bug's fork: the same sequence of pool operations a CUDA call
performs. b29 and b30 need CUDA objects (events, device tensors); for them this script only
shows that the host behaviour agrees (the difference is argued in their docstrings).

This is a simulation of the mechanism, not the GPU observation itself.
"""

from __future__ import annotations

import gc
import importlib
import sys
import weakref
from typing import Any, Callable

import numpy as np
import torch

CPU = torch.device("cpu")


def catch(fn: Callable[[], Any]) -> Any:
    try:
        r = fn()
        return ("ok", r.tolist() if isinstance(r, torch.Tensor) else r)
    except Exception as exc:  # noqa: BLE001
        return ("raised", type(exc).__name__, str(exc).splitlines()[0][:140])


def fork_of(name: str) -> Any:
    return importlib.import_module(f"r38.{name}")._fork()


class FakeEvent:
    """A CUDA event on a stream that never drains (the copies sit behind busy work)."""

    waits = 0

    def record(self, stream: Any = None) -> None:
        pass

    def query(self) -> bool:
        return False

    def synchronize(self) -> None:
        FakeEvent.waits += 1  # the host would block here until the busy work ends


class FakeClock:
    def __init__(self, key: int) -> None:
        self.key = key

    def stream_key(self) -> int:
        return self.key

    def current_stream(self) -> Any:
        return ("stream", self.key)

    def event(self) -> FakeEvent:
        return FakeEvent()


def small_call(f: Any, values: list[int]) -> Any:
    """What a small async_tensor_h2d call does below validation, with the host as the target."""
    src = torch.tensor(values, dtype=torch.int32)
    return f.h2d._to_device(values, src, torch.int32, CPU, None, pin=False)


def sim_b24(f: Any) -> Any:
    with torch.inference_mode():
        first = catch(lambda: small_call(f, [1]))
    second = catch(lambda: small_call(f, [2]))  # outside inference mode: reuses the open chunk
    return first, second


def sim_b25(f: Any) -> Any:
    small_call(f, [1])
    released = f.staging.empty_staging_cache()
    return released, {k: v["retained_bytes"] for k, v in f.staging.staging_stats().items()}


def sim_b26(f: Any) -> Any:
    pool = f.staging.pool_for(CPU, f.staging.SMALL_CHUNK_BYTES, False, small=True)
    a = pool.small_tensor(torch.Size([1]), torch.int32, 4)
    b = pool.small_tensor(torch.Size([1]), torch.int32, 4)
    a.fill_(1)
    b.fill_(2)  # the second call's host copy
    return {"same_first_byte": a.data_ptr() == b.data_ptr(), "first_slice_now_holds": a.tolist()}


def sim_b27(f: Any) -> Any:
    pool = f.staging.pool_for(CPU, f.staging.SMALL_CHUNK_BYTES, False, small=True)
    out = []
    for _ in range(6):
        out.append(catch(lambda: tuple(pool.small_tensor(torch.Size([51200]), torch.int32, 204800).shape)))
    return out


def sim_b28(f: Any) -> Any:
    FakeEvent.waits = 0
    pool = f.staging.StagingPool(
        CPU, f.staging.SMALL_CHUNK_BYTES, pin=False, small=True,
        max_retained=f.staging.SMALL_MAX_RETAINED_BYTES, clock=FakeClock(key=7),  # a side stream, busy
    )
    for _ in range(10):
        pool.small_tensor(torch.Size([1]), torch.int32, 4)
    after10 = pool.allocations
    for _ in range(60):
        pool.small_tensor(torch.Size([1]), torch.int32, 4)
    return {"allocations_after_10_calls": after10, "allocations_after_70": pool.allocations, "host_waits": FakeEvent.waits}


def sim_b29(bu: Any) -> Any:
    p = bu.UvaBufferPool(1, torch.int32, 1)
    w = weakref.ref(p._uva_bufs[0])
    p.copy_to_uva([1, 2])
    p.copy_to_uva(list(range(4)))
    gc.collect()
    return {"old_slot_released": w() is None, "slot_class": type(p._uva_bufs[0]).__name__}


def sim_b30(bu: Any) -> Any:
    t = bu.StagedWriteTensor(4, torch.int32, "cpu")
    t.stage_write(0, 0, [5])
    ptrs = torch.tensor([t.gpu.data_ptr()], dtype=torch.uint64)
    strides = torch.tensor([t.gpu.stride(0)], dtype=torch.int64)
    return catch(lambda: (bu.FusedStagedWriter("cpu", 1).apply([t], ptrs, strides), t.gpu.tolist())[1])


STAGING = {
    "b24_chunk_view_in_caller_mode": sim_b24,
    "b25_trim_keeps_open_chunk": sim_b25,
    "b26_small_offset_rounded_down": sim_b26,
    "b27_small_fit_ignores_payload": sim_b27,
    "b28_small_open_key_stale": sim_b28,
}
UTILS = {
    "b29_pool_retired_never_pruned": sim_b29,
    "b30_fused_ptrs_through_numpy": sim_b30,
}


def main() -> int:
    shown = 0
    print("== staging-pool mechanisms (device-generic path, host target): control vs bug")
    for name, sim in STAGING.items():
        a, b = sim(fork_of("b00_control")), sim(fork_of(name))
        shown += a != b
        print(f"{'SHOWN' if a != b else 'NOT SHOWN'} {name}\n    control: {a}\n    bug:     {b}")
    print("== Model Runner V2 GPU-only bugs: host behaviour agrees (needs CUDA events / device tables)")
    ctl = importlib.import_module("r38.b00_control").target().buffer_utils
    for name, sim in UTILS.items():
        bug = importlib.import_module(f"r38.{name}").target().buffer_utils
        a, b = sim(ctl), sim(bug)
        print(f"{'agree' if a == b else 'DIFFER'} {name}\n    control: {a}\n    bug:     {b}")
    print(f"== {shown}/{len(STAGING)} staging mechanisms shown on the host")
    return 0 if shown == len(STAGING) else 1


if __name__ == "__main__":
    sys.exit(main())
