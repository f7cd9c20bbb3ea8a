"""vLLM 0.31-0.33 Model Runner V2 `FusedStagedWriter`: a float32 `StagedWriteTensor`'s values are written as int32 bit patterns.

`FusedStagedWriter.apply` sends every tensor's staged contents with
`async_tensor_h2d(contents, dtype=torch.int32)` and its kernel stores them through int32
pointers, whatever the tensor's dtype: a float32 value 1.5 becomes int32 1, stored as the bits
of 1.4e-45. `StagedWriteTensor` itself accepts float32 (and int64), and its own `apply_write()`
writes 1.5 correctly.
Contract `fused-writes`: one fused apply leaves every tensor as its own `apply_write()` would.
Fix (the reference): convert each tensor's contents in that tensor's dtype.
Needs CUDA (vLLM runs its Triton kernels on GPU platforms only; on a CPU the kit shows the same
fault by running vLLM's kernel source under Triton's interpreter) and vLLM's import dependencies
(regex, psutil, pyzmq, urllib3).
"""

import sys

import torch

if "--reference" in sys.argv:  # the same assertion against h2d-contracts' reference (pip install h2d-contracts)
    from h2d_contracts.h2d_impl.buffer_utils import FusedStagedWriter, StagedWriteTensor
else:
    if not torch.cuda.is_available():
        sys.exit("needs CUDA: vLLM runs its Triton kernels on GPU platforms only")
    from vllm.v1.worker.gpu.buffer_utils import FusedStagedWriter, StagedWriteTensor

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

t = StagedWriteTensor(4, torch.float32, DEVICE)
t.stage_write_elem(0, 1.5)
ptrs = torch.tensor([t.gpu.data_ptr()], dtype=torch.uint64, device=DEVICE)
strides = torch.tensor([t.gpu.stride(0)], dtype=torch.int64, device=DEVICE)
FusedStagedWriter(DEVICE, 1).apply([t], ptrs, strides)
got = t.gpu[0].item()
assert got == 1.5, f"a fused write of 1.5 into a float32 tensor gave {got!r}"
print("ok: the fused writer keeps each tensor's dtype")
