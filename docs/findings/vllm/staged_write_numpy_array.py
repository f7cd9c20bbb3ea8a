"""vLLM 0.31-0.33 Model Runner V2 `StagedWriteTensor.stage_write`: a numpy array as `x` is dropped or refused.

`stage_write(index, start, x)` (annotated `x: Iterable[int] | Iterable[float]`) begins with `if not x: return`.
For a numpy array that is numpy's truth value: `np.array([0])` is falsy, so a write of the single value 0 is dropped
without a word (the element keeps its old value), and an array of two or more elements raises numpy's
`ValueError: The truth value of an array with more than one element is ambiguous` for a valid write.
Contract `staged-write`: a write is applied as its values are, whatever iterable holds them. Found by the kit's
array-values table (held-out round r58, 2026-12-05). vLLM 0.33.0's callers pass lists (`.tolist()`), so no
engine path of that release is known to hit it.
Fix (the reference): test the staged list (`values = list(x); if not values: return`), not `x`.
Needs vLLM's import dependencies (regex, psutil, pyzmq, urllib3); on a host without CUDA it stops after staging
(vLLM's CPU platform has no Triton kernels): the dropped write is seen in the staged tables.
"""

import os
import sys

import numpy as np
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

t = StagedWriteTensor((2, 4), torch.int32, DEVICE)
t.stage_write(0, 0, [7, 7, 7])
if torch.cuda.is_available() or "--reference" in sys.argv:
    t.apply_write()
else:
    t.clear_staged_writes()  # no kernel on vLLM's CPU platform: the staging alone is judged
t.stage_write(0, 1, np.array([0], dtype=np.int32))  # one value, 0
assert len(t._staged_write_indices) == 1, "stage_write(0, 1, np.array([0])) staged nothing (dropped as an empty write)"
t.stage_write(1, 0, np.array([5, 6, 7], dtype=np.int32))  # three values
if torch.cuda.is_available() or "--reference" in sys.argv:
    t.apply_write()
    got = t.gpu.cpu().tolist()
    assert got == [[7, 0, 7, 0], [5, 6, 7, 0]], f"got {got}"
print("ok: numpy arrays as x are applied as their values")
