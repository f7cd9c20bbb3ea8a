"""vLLM 0.10.2-0.33 `CpuGpuBuffer.copy_to_gpu(n)`: `n` beyond the capacity (or negative) is accepted silently.

`copy_to_gpu(n)` slices `self.gpu[:n].copy_(self.cpu[:n])`: Python slicing clamps n=6 of 4 rows to 4 and reads n=-1 as
"all but the last row", so a wrong row count copies the wrong rows without an error.
Contract `buffer`: a row count outside 0..capacity raises IndexError naming n.
Fix (the reference): `if not 0 <= n <= len(self.cpu): raise IndexError(f"n={n} rows, capacity {len(self.cpu)}")`.
Needs vLLM's full dependencies for `vllm.v1.utils` (or run with --reference).
"""

import os
import sys

import torch

if "--reference" in sys.argv:  # the same assertion against h2d-contracts' reference (pip install h2d-contracts)
    from h2d_contracts.h2d_impl import CpuGpuBuffer
else:
    if not torch.cuda.is_available():
        os.environ.setdefault(
            "VLLM_TARGET_DEVICE", "cpu"
        )  # a host without CUDA: vLLM's CPU platform (PIN_MEMORY=False)
    from vllm.v1.utils import CpuGpuBuffer

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

buf = CpuGpuBuffer(4, dtype=torch.int32, device=DEVICE, pin_memory=torch.cuda.is_available())
for n in (6, -1):
    try:
        buf.copy_to_gpu(n)
    except IndexError:
        continue
    raise AssertionError(f"copy_to_gpu({n}) with capacity 4 was accepted")
print("ok: row counts outside 0..capacity are refused")
