"""vLLM 0.10-0.33 (and SGLang 0.5.22-0.5.23): a list of floats with `dtype=torch.uint64` raises TypeError.

`torch.tensor([0.0], dtype=torch.uint64)` raises "an integer is required" (torch converts Python floats to uint64 only
from ints). Contract `values`: a representable value into any dtype gives that value.
Fix (the reference): build the host tensor in float64 and convert it (`torch.tensor(data, dtype=torch.float64).to(dtype)`),
after checking the values are representable.
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

try:
    result = async_tensor_h2d([0.0, 3.0], device=DEVICE, dtype=torch.uint64)
except TypeError as exc:
    raise AssertionError(f"[0.0, 3.0] into uint64 raised {type(exc).__name__}: {exc}") from None
assert result.cpu().tolist() == [0, 3], result
print("ok: floats into uint64")
