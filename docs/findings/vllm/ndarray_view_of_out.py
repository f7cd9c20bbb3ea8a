"""vLLM 0.30-0.33 `async_tensor_h2d`: data that is a numpy view of `out`'s own memory is overwritten while it is read.

No overlap check: `out.copy_(torch.from_numpy(data))` with overlapping memory shifts the caller's values.
Contract `input-untouched`: a valid call never changes the caller's data, or an overlapping out is refused (ValueError).
Fix (the reference): refuse an `out` whose bytes overlap the data's (`ValueError("out shares memory with data")`).
Host memory only (the data is a host array): run on any machine.
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

base = torch.arange(6, dtype=torch.float32)
data = base.numpy()[:-1]
before = data.copy()
try:
    async_tensor_h2d(data, out=base[1:])
except ValueError:
    pass
assert (data == before).all(), f"the caller's array changed from {before.tolist()} to {data.tolist()}"
print("ok: the caller's array is unchanged")
