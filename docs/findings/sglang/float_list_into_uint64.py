"""SGLang 0.5.22-0.5.23 `async_h2d`: a list of floats with `dtype=torch.uint64` raises TypeError.

`torch.tensor([0.0], dtype=torch.uint64)` raises "an integer is required". Contract `values`.
Fix (the reference): build the host tensor in float64 and convert it, after checking the values are representable.
"""

import sys

import torch

if "--reference" in sys.argv:  # the same assertion against h2d-contracts' reference (pip install h2d-contracts)
    from h2d_contracts.h2d_impl import async_tensor_h2d

    def async_h2d(args, *, dtype, device):
        return async_tensor_h2d(args, device=device, dtype=dtype)
else:
    from sglang.srt.utils.common import async_h2d

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

try:
    result = async_h2d([0.0, 3.0], dtype=torch.uint64, device=DEVICE)
except TypeError as exc:
    raise AssertionError(f"[0.0, 3.0] into uint64 raised {type(exc).__name__}: {exc}") from None
assert result.cpu().tolist() == [0, 3], result
print("ok: floats into uint64")
