"""vLLM 0.10-0.33 (and SGLang): values outside the target dtype are wrapped silently.

`torch.tensor([-1], dtype=torch.uint8)` gives 255; an int64 tensor holding 2**40 copied into an int32 `out` gives 0
(vLLM 0.30-0.33: `out.copy_(t)` converts without any check).
Contract `bad-input`: a value the target dtype cannot hold raises ValueError naming the data.
Fix (the reference): check `source.min()`/`max()` against `torch.iinfo(dtype)` before converting (ints, and floats into ints).
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
    result = async_tensor_h2d([-1], device=DEVICE, dtype=torch.uint8)
except ValueError:
    pass
else:
    raise AssertionError(f"[-1] into uint8 gave {result.tolist()} silently")
print("ok: out-of-range values refused")
