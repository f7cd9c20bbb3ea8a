"""vLLM 0.31-0.33 Model Runner V2 `FusedStagedWriter.apply`: empty tables beside tensors with writes are read past.

`apply(tensors, output_ptrs, output_strides)` launches `_apply_write_kernel` over the staged writes and reads each
write's tensor address and row stride from `output_ptrs[group]` and `output_strides[group]` without checking the
tables' length. With an empty `output_ptrs` (a table built before the tensors were registered, or sliced one short
for a single tensor) the kernel reads past it and stores through whatever it read: on the CPU under Triton's
interpreter the process dies (SIGSEGV); on a GPU it is an illegal address. The apply runs in a child process here.
Contract `fused-writes`: tables that disagree with the tensors are refused with ValueError naming them, nothing
written. Found by the kit's fused-refusals table (held-out round r58, 2026-12-05).
Fix (the reference): compare the tables with the tensors (length included) before any write.
On a GPU it imports vLLM (its import dependencies: regex, psutil, pyzmq, urllib3); on a CPU host, where vLLM's
platform has no Triton kernels, it runs vLLM's `buffer_utils.py` and kernel as h2d-contracts loads them
(`--h2d-impl vllm`: vLLM installed, Triton's interpreter).
"""

import os
import subprocess
import sys

CHILD = r"""
import os, sys, torch
if "--reference" in sys.argv:
    from h2d_contracts.h2d_impl import buffer_utils as bu
elif torch.cuda.is_available():
    import vllm.v1.worker.gpu.buffer_utils as bu
else:  # vLLM's CPU platform has no Triton kernels: its buffer_utils.py as h2d-contracts loads it, kernel interpreted
    from h2d_contracts.contracts import load_target
    bu = load_target("vllm").buffer_utils
dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
a, b = (bu.StagedWriteTensor((2, 4), torch.int32, dev) for _ in range(2))
a.stage_write(0, 1, [5, 6]); b.stage_write(1, 0, [7])
ptrs = torch.tensor([a.gpu.data_ptr(), b.gpu.data_ptr()], dtype=torch.uint64, device=dev)
strides = torch.tensor([a.gpu.stride(0), b.gpu.stride(0)], dtype=torch.int64, device=dev)
try:
    bu.FusedStagedWriter(dev, 2).apply([a, b], ptrs[:0], strides)
except ValueError as exc:
    assert "output_ptrs" in str(exc), exc
    print("refused")
else:
    print("accepted")
"""

env = {**os.environ, "TRITON_INTERPRET": os.environ.get("TRITON_INTERPRET", "1")}
proc = subprocess.run([sys.executable, "-c", CHILD, *sys.argv[1:]], capture_output=True, text=True, env=env)
assert proc.returncode == 0, f"the apply's process ended with status {proc.returncode} (a read or store past the table)"
assert proc.stdout.strip().endswith("refused"), f"an empty output_ptrs was {proc.stdout.strip() or 'not refused'}"
print("ok: an empty output_ptrs is refused naming it")
