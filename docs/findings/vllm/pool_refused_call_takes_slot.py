"""vLLM 0.31-0.33 Model Runner V2 `UvaBufferPool.copy_to_uva`: a call that fails still takes a slot.

`copy_to_uva(x)` advances its round-robin cursor first (`self._curr = (self._curr + 1) %
max_concurrency`) and writes `x` after (`dst[:n] = x`); rows of another shape fail in that write
(numpy's "could not broadcast") with the cursor already moved. The next accepted call then
writes the slot one step early: with `max_concurrency=2`, the reader of the step before the
failed call sees the next step's data although only one accepted call came after it.
Contract `pool`: a refused call takes no slot (readers are retired `max_concurrency` accepted
calls later). Fix (the reference): check `x`'s shape before advancing the cursor.
Needs vLLM's import dependencies (regex, psutil, pyzmq, urllib3); on a host without CUDA
vLLM's `NonUvaBuffer` slots show the same.
"""

import os
import sys

import numpy as np
import torch

if "--reference" in sys.argv:  # the same assertion against h2d-contracts' reference (pip install h2d-contracts)
    from h2d_contracts.h2d_impl.buffer_utils import UvaBufferPool
else:
    if not torch.cuda.is_available():
        os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    import vllm.v1.worker.gpu.buffer_utils as bu

    if not torch.cuda.is_available():
        bu.is_uva_available = lambda: False  # vLLM's CPU platform says True, then cannot map pinned memory
    UvaBufferPool = bu.UvaBufferPool

pool = UvaBufferPool((4, 3), torch.int32, 2)
step0 = pool.copy_to_uva(np.full((1, 3), 1, dtype=np.int32))  # a reader of step 0 holds this view
try:
    pool.copy_to_uva([[-1, -1]])  # rows of 2 into slots of rows of 3: refused
except (TypeError, ValueError):
    pass
pool.copy_to_uva(np.full((1, 3), 2, dtype=np.int32))  # step 1: one accepted call after step 0
if torch.cuda.is_available():
    torch.cuda.synchronize()
seen = step0.cpu().tolist()
assert seen == [[1, 1, 1]], (
    f"the reader of step 0 sees {seen} after a failed call and one step: the failed call took a slot"
)
print("ok: the failed call took no slot")
