"""vLLM 0.24-0.33 `async_tensor_h2d`: a transposed tensor comes back with its own (non-contiguous) strides.

`t.to(device)` keeps the strides of a dense permuted tensor (torch.preserve_format), so `result.view(-1)` raises.
Contract `values`: a result made without `out` is contiguous, whatever the input layout (as `torch.tensor` gives).
Fix (the reference): stage into `torch.empty(shape, ...)` (contiguous) and copy, or `.contiguous()` the result.
"""

import os
import sys

import numpy as np
import torch

if "--reference" in sys.argv:  # the same assertion against h2d-contracts' reference (pip install h2d-contracts)
    from h2d_contracts.h2d_impl import async_tensor_h2d
else:
    if not torch.cuda.is_available():
        os.environ.setdefault(
            "VLLM_TARGET_DEVICE", "cpu"
        )  # a host without CUDA: vLLM's CPU platform (PIN_MEMORY=False)
    from vllm.utils.torch_utils import async_tensor_h2d

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

data = torch.arange(6, dtype=torch.int32).reshape(2, 3).t()
result = async_tensor_h2d(data, device=DEVICE)
assert result.is_contiguous(), f"result strides {result.stride()} for shape {tuple(result.shape)}: not contiguous"
print("ok: contiguous result")
