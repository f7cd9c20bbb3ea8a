"""vLLM 0.30-0.33 CPU worker (`vllm/v1/worker/cpu/shm.py`): a float list into a float64 `out` passes through float32.

The CPU worker's `async_tensor_h2d` (which replaces the main one in CPU worker processes) builds
`torch.tensor(data, dtype=None)` when `out` is given: Python floats become float32 (the default dtype) before
`out.copy_`, so `[0.1]` into a float64 out is written as 0.10000000149011612 and `[16777217.0]` as 16777216.0.
Contract `values`: the result equals the data converted once, to the resolved dtype (out.dtype).
Fix (the reference): `dtype = out.dtype if dtype is None and out is not None` before `torch.tensor(data, dtype=dtype)`.
Needs vLLM's CPU-worker dependencies (or run with --reference).
"""

import os
import sys

import torch

if "--reference" in sys.argv:  # the same assertion against h2d-contracts' reference (pip install h2d-contracts)
    from h2d_contracts.h2d_impl import async_tensor_h2d_cpu as async_tensor_h2d
else:
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    from vllm.v1.worker.cpu.shm import async_tensor_h2d  # note: importing it patches torch, as vLLM's CPU worker does

out = torch.zeros(1, dtype=torch.float64)
result = async_tensor_h2d([0.1], out=out)
assert result.item() == 0.1, f"[0.1] into a float64 out gave {result.item()!r}"
print("ok: converted once, to float64")
