"""vLLM 0.31-0.33 Model Runner V2 `StagedWriteTensor.stage_write`: a write past its row's end is staged and lands in the next row.

`stage_write(index, start, x)` checks only `assert index >= 0` and `assert start >= 0`
(asserts, gone under `python -O`); the kernel writes `len(x)` values from `row index, column
start` through the row stride, so `stage_write(1, 6, [1, 2, 3, 4])` into rows of 8 writes
columns 6-7 of row 1 and columns 0-1 of row 2, silently (a row index past the tensor writes
past its memory).
Contract `staged-write`: a write past the tensor's rows or its row's end raises an exception
naming `index` or `start`, and nothing is staged.
Fix (the reference): check `0 <= index < num_rows` and `start + len(x) <= row length` before staging.
Needs vLLM's import dependencies (regex, psutil, pyzmq, urllib3); on a host without CUDA it
stops at the acceptance (vLLM's CPU platform has no Triton kernels), on a GPU it shows row 2 written.
"""

import os
import sys

import torch

if "--reference" in sys.argv:  # the same assertion against h2d-contracts' reference (pip install h2d-contracts)
    from h2d_contracts.h2d_impl.buffer_utils import StagedWriteTensor
else:
    if not torch.cuda.is_available():
        os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    import vllm.v1.worker.gpu.buffer_utils as bu

    if not torch.cuda.is_available():
        bu.is_uva_available = lambda: False  # vLLM's CPU platform says True, then cannot map pinned memory
    StagedWriteTensor = bu.StagedWriteTensor

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

t = StagedWriteTensor((4, 8), torch.int32, DEVICE)
try:
    t.stage_write(1, 6, [1, 2, 3, 4])
except (IndexError, ValueError) as exc:
    assert "start" in str(exc) or "index" in str(exc), exc
    print("ok: a write past the row's end is refused")
    sys.exit(0)
if not torch.cuda.is_available():  # vLLM runs its Triton kernels on GPU platforms only: the acceptance is the fault
    raise AssertionError("stage_write(1, 6, 4 values) into rows of 8 was accepted (staged for the kernel)")
t.apply_write()
torch.cuda.synchronize()
row2 = t.gpu[2].tolist()
raise AssertionError(f"stage_write(1, 6, 4 values) into rows of 8 was accepted; row 2 is now {row2}")
