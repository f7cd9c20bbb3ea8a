"""vLLM 0.27-0.29 Model Runner V2 `FusedStagedWriter(device, max_writes=0)`: one staged write faults the kernel, losing the CUDA context.

Before 0.31 the writer keeps its index, start and length tables in pools of fixed slots of
`max_writes` entries. With `max_writes=0` and one staged write, numpy's `slot[:1] = [x]` into
the empty slot writes nothing (a slice past the end is empty, and one value broadcasts into
none), and the kernel then reads its tables through that empty view: an illegal memory
access. CUDA's error is sticky: every later CUDA call of the process raises it. Two writes
into slots too small raise numpy's "could not broadcast" ValueError instead. 0.31 grows a
slot to the writes it must hold.
Contract `fused-writes`: one fused apply leaves every tensor as its own `apply_write()` would,
or refuses with an exception, and the process stays usable.
Run in its own process (a lost context ends it). Needs CUDA and vLLM's import dependencies
(regex, psutil, pyzmq, urllib3); the kit's probe `dev/fused_max_writes_probe.py` runs the
same case from a release's source alone.
"""

import sys

import torch

if not torch.cuda.is_available():
    sys.exit("needs CUDA: vLLM runs its Triton kernels on GPU platforms only")
if "--reference" in sys.argv:  # the same assertion against h2d-contracts' reference (pip install h2d-contracts)
    from h2d_contracts.h2d_impl.buffer_utils import FusedStagedWriter, StagedWriteTensor
else:
    from vllm.v1.worker.gpu.buffer_utils import FusedStagedWriter, StagedWriteTensor

DEVICE = torch.device("cuda", 0)

t = StagedWriteTensor((2, 4), torch.int32, DEVICE)
t.stage_write(1, 0, [5, 6])
ptrs = torch.tensor([t.gpu.data_ptr()], dtype=torch.uint64, device=DEVICE)
strides = torch.tensor([t.gpu.stride(0)], dtype=torch.int64, device=DEVICE)
try:
    FusedStagedWriter(DEVICE, 0).apply([t], ptrs, strides)
    refused = None
except (ValueError, TypeError) as exc:  # a refusal is allowed; the context must survive it
    refused = exc
try:
    torch.cuda.synchronize()
    rows = t.gpu.cpu().tolist()
except RuntimeError as exc:
    raise AssertionError(f"a fused apply with max_writes=0 and one write lost the CUDA context: {exc}") from exc
if refused is None:
    assert rows == [[0, 0, 0, 0], [5, 6, 0, 0]], f"a fused apply with max_writes=0 and one write gave {rows}"
print("ok: the fused writer applied or refused the write, and the CUDA context is alive")
