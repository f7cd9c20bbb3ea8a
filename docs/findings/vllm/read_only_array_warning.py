"""vLLM 0.24-0.33 `async_tensor_h2d`: the first read-only numpy array of a process prints torch's UserWarning.

`torch.from_numpy` warns once per process "The given NumPy array is not writable ... undefined behavior" (an error
under `python -W error`). Contract `values`: valid inputs are converted silently.
Fix (the reference): copy a read-only array (`np.array(data)`) before `torch.from_numpy`, or use `torch.tensor(data)`.
Run this script in a fresh interpreter (the warning is once per process).
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

import warnings

data = np.arange(4, dtype=np.int32)
data.flags.writeable = False
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    result = async_tensor_h2d(data, device=DEVICE)
assert result.cpu().tolist() == [0, 1, 2, 3], result
assert not seen, f"warned: {seen[0].category.__name__}: {seen[0].message}"
print("ok: no warning")
