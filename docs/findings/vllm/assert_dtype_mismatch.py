"""vLLM 0.30-0.33 `async_tensor_h2d`: a `dtype` that disagrees with `out.dtype` fails an `assert` (gone under python -O).

Under `python -O` the values are converted into out's dtype silently.
Contract `dtype`: dtype disagreeing with out.dtype raises TypeError naming both.
Fix (the reference): `if dtype is not None and dtype != out.dtype: raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}")`.
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

out = torch.zeros(2, dtype=torch.int64, device=DEVICE)
try:
    async_tensor_h2d([1, 2], dtype=torch.int32, out=out)
except TypeError:
    pass
except AssertionError as exc:
    raise AssertionError(
        f"raised AssertionError ({exc!r}), not TypeError: under python -O this check is gone"
    ) from None
else:
    raise AssertionError("dtype=torch.int32 with an int64 out was accepted")
print("ok: TypeError")
