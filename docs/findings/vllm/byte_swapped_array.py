"""vLLM 0.24-0.33 `async_tensor_h2d`: a numpy array in non-native byte order (`dtype=">i4"`) raises.

`torch.from_numpy` refuses it ("given numpy array has byte order different from the native byte order").
Contract `values`.
Fix (the reference): `data.astype(data.dtype.newbyteorder("="))` for a non-native byte order, before `torch.from_numpy`.
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

data = np.arange(3, dtype=">i4")
try:
    result = async_tensor_h2d(data, device=DEVICE)
except ValueError as exc:
    raise AssertionError(f"a big-endian int32 array raised {type(exc).__name__}: {exc}") from None
assert result.cpu().tolist() == [0, 1, 2] and result.dtype == torch.int32, result
print("ok: a byte-swapped array is copied")
