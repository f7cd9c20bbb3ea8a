"""vLLM 0.24-0.33 CPU worker (`vllm/v1/worker/cpu/shm.py`): a tensor input is returned itself, not copied.

In a CPU worker process this function replaces the main `async_tensor_h2d` and returns `data` (or `data.to(dtype)`,
which is `data` when the dtype matches): the engine's "device" tensor is the caller's host tensor, so the caller's next
in-place refill changes a result already handed out.
Contract `no-alias` (the CPU-platform variant makes real host results): the result never shares memory with the input.
Fix (the reference): `data.to(dtype=dtype, copy=True)` (or `.clone()`).
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

data = torch.arange(3)
result = async_tensor_h2d(data, device="cpu")
data.fill_(9)
assert result.tolist() == [0, 1, 2], (
    f"the result changed with the input: {result.tolist()} (result is data: {result is data})"
)
print("ok: a copy")
