"""vLLM 0.30-0.33 `async_tensor_h2d`: an `out` made under torch.inference_mode() is written, then the call raises.

`out.copy_(t)` outside inference mode writes the values and then raises RuntimeError ("Inplace update to inference tensor
outside InferenceMode"), so a failed call has changed the caller's buffer.
Contract `input-untouched`: a call that raises leaves out unchanged.
Fix (the reference): refuse an inference-mode `out` outside inference mode before writing (`out.is_inference()`).
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

with torch.inference_mode():
    out = torch.full((3,), 9, dtype=torch.int64, device=DEVICE)
try:
    async_tensor_h2d([1, 2, 3], out=out)
except (RuntimeError, ValueError):
    pass
with torch.inference_mode():
    after = out.cpu().tolist()
assert after == [9, 9, 9], f"the failing call left out = {after}"
print("ok: out untouched")
