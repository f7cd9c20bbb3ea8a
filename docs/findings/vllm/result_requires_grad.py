"""vLLM 0.24-0.33 `async_tensor_h2d`: a tensor that requires grad gives a result in the caller's autograd graph.

`t.to(device)` is differentiable: the result has `grad_fn=ToCopyBackward0` (or is the input itself on the host).
Contract `values`: the copy for the device is data, detached (as `torch.tensor` and the reference give).
Fix (the reference): copy from `data.detach()`.
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

data = torch.ones(3, requires_grad=True)
result = async_tensor_h2d(data, device=DEVICE)
assert not result.requires_grad and result.grad_fn is None, (
    f"requires_grad={result.requires_grad}, grad_fn={result.grad_fn}"
)
print("ok: detached result")
