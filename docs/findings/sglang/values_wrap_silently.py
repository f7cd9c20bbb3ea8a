"""SGLang 0.5.22-0.5.23 `async_h2d`: values outside the target dtype are wrapped silently.

`torch.tensor([-1], dtype=torch.uint8)` gives 255 and `torch.tensor([2.0**63], dtype=torch.int64)` gives INT64_MIN.
Contract `bad-input`: a value the target dtype cannot hold raises ValueError naming the data.
Fix (the reference): check the values against `torch.iinfo(dtype)` before converting (ints, and floats into ints).
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

for data, dtype in (([-1], torch.uint8), ([2.0**63], torch.int64)):
    try:
        result = async_h2d(data, dtype=dtype, device=DEVICE)
    except ValueError:
        continue
    raise AssertionError(f"{data} into {dtype} gave {result.tolist()} silently")
print("ok: out-of-range values refused")
