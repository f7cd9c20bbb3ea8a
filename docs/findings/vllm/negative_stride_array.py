"""vLLM 0.24-0.33 `async_tensor_h2d`: a numpy array with a negative stride (`a[::-1]`) raises.

`torch.from_numpy` refuses negative strides ("At least one stride in the given numpy array is negative").
Contract `values`: every valid input (any numpy layout) gives its values on the device.
Fix (the reference): `np.ascontiguousarray(data)` when a stride is negative, before `torch.from_numpy`.
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

data = np.arange(6, dtype=np.int64)[::-1]
try:
    result = async_tensor_h2d(data, device=DEVICE)
except ValueError as exc:
    raise AssertionError(f"np.arange(6)[::-1] raised {type(exc).__name__}: {exc}") from None
assert result.cpu().tolist() == [5, 4, 3, 2, 1, 0], result
print("ok: a reversed array is copied")
