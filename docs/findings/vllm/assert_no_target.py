"""vLLM 0.30-0.33 `async_tensor_h2d`: neither `device` nor `out` fails an `assert` (AssertionError; gone under python -O).

Under `python -O` the assert disappears and the call returns a host tensor, silently.
Contract `target`: neither device nor out raises TypeError.
Fix (the reference): `if device is None and out is None: raise TypeError("a target is required: pass device=... or out=...")`.
Run it also as `python -O assert_no_target.py`.
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
    result = async_tensor_h2d([1, 2])
except TypeError:
    pass
except AssertionError as exc:
    raise AssertionError(
        f"raised AssertionError ({exc!r}), not TypeError: under python -O this check is gone"
    ) from None
else:
    raise AssertionError(f"returned {result!r} (device {result.device}) without a device or out")
print("ok: TypeError")
