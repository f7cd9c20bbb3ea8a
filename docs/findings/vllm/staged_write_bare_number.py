"""vLLM 0.31-0.33 Model Runner V2 `StagedWriteTensor.stage_write`: a bare number as `x` is half staged, or taken as nothing.

`stage_write(index, start, x)` does `if not x: return`, appends `index` and `start` to its tables, then
`self._staged_write_contents.extend(x)`. A bare 5 raises `TypeError: 'int' object is not iterable` (naming no
argument) after `index` and `start` were appended, so the tables no longer line up for the next `apply_write`; a
bare 0 or 0.0 is taken for an empty write and dropped silently.
Contract `staged-write`: a write whose `x` is not an iterable of numbers raises an exception naming `x`, and nothing
of it is staged. Found by the kit's bad-values table (held-out round r51, 2026-12-05).
Fix (the reference): refuse a non-iterable `x` naming it before touching the tables.
Needs vLLM's import dependencies (regex, psutil, pyzmq, urllib3).
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

for x in (5, 0):
    t = StagedWriteTensor((2, 4), torch.int32, DEVICE)
    try:
        t.stage_write(0, 1, x)
    except TypeError as exc:
        assert "x" in str(exc).replace("'int' object is not iterable", ""), (
            f"stage_write(0, 1, {x}): {exc} (names no argument)"
        )
        continue
    raise AssertionError(f"stage_write(0, 1, {x}) was accepted")
print("ok: a bare number as x is refused naming x")
