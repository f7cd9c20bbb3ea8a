"""vLLM 0.30-0.33 `async_tensor_h2d`: an `out` of another shape is filled by broadcasting, not refused.

Contract `out`: out is written exactly (same shape as the data) or the call raises ValueError naming out.
Fix (the reference): compare `out.shape` with the data's shape before copying and raise
`ValueError(f"out.shape={tuple(out.shape)} but data has shape ...")`.
Run: `python out_broadcast.py` fails on vLLM (AssertionError); `python out_broadcast.py --reference` passes.
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

out = torch.zeros(4, dtype=torch.int64, device=DEVICE)
try:
    result = async_tensor_h2d([7], out=out)
except ValueError as exc:
    assert "out" in str(exc), exc
else:
    raise AssertionError(f"[7] into an out of shape (4,) returned {result.tolist()}: broadcast instead of refused")
print("ok: a one-element list into an out of shape (4,) is refused")
