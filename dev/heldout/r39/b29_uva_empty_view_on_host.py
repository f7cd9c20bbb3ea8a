"""b29 (GPU-only, buffer_utils.py ``uva_view``): the "view" of an empty pinned tensor is the host tensor itself instead of an empty device tensor: an empty ``UvaBuffer``, pool slot or UVA-backed ``StagedWriteTensor`` hands out CPU tensors to device code.

What changed: the empty case ``return torch.empty(cpu.shape, dtype=cpu.dtype,
device=f"cuda:{torch.cuda.current_device()}")`` became ``return cpu``.

Why an engineer would write it: "there are no bytes to map and no kernel can read an
empty tensor: return it as it is instead of allocating" (a zero-size allocation still
goes through the caching allocator, and the device-string formatting shows in the
profile of pools created per request). Shapes and dtypes agree, so code that only looks
at ``numel()`` is fine; the device does not.

Promise broken: docs/reference.md, Model Runner V2: "An empty tensor has no bytes to map
(torch reports an empty pinned tensor as not pinned): its view is an empty device tensor
of the same shape, so an empty pool slot (``FusedStagedWriter(device, 0)``) works as
with vLLM's op"; ``uva_view`` docstring: "A CUDA tensor over the same pinned host memory
as ``cpu`` ... (an empty one gives an empty device tensor)"; docs/contracts.md uva: "On
CUDA a ``UvaBuffer``'s view is read when the kernel runs".

Smallest input (one GPU): ``UvaBuffer(0, torch.int32).uva().device`` (also
``UvaBufferPool((0, 4), torch.int32).copy_to_uva(np.zeros((0, 4), np.int32)).device``
and ``StagedWriteTensor((0, 4), torch.int32, 'cuda', uva_instead_of_gpu=True).gpu.device``;
then an op mixing it with a CUDA tensor, ``view + torch.zeros(0, dtype=torch.int32,
device='cuda')``).

Reference result: ``cuda:0`` (and the sum is an empty CUDA tensor).
Bug result: ``cpu`` (``is_cuda`` False; device-checking ops that mix it with CUDA tensors
raise "Expected all tensors to be on the same device").
The device error was checked with plain torch on an H200 (torch 2.11).
On a CPU-only host ``uva_view`` raises RuntimeError before (no UVA) and pools use
``NonUvaBuffer``: identical to the reference.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import make_target


def uva_view(cpu: torch.Tensor) -> torch.Tensor:
    """A CUDA tensor over the same pinned host memory as ``cpu`` (same shape and dtype); kernels read it when they run."""
    if not uva_available():
        raise RuntimeError("UVA is not available: needs a CUDA device and pinned host memory")
    if cpu.device.type == "cpu" and cpu.numel() == 0:
        # BUG: was `return torch.empty(cpu.shape, dtype=cpu.dtype, device=f"cuda:{torch.cuda.current_device()}")`
        # ("nothing to map: return it as it is")
        return cpu
    if cpu.device.type != "cpu" or not cpu.is_pinned():
        raise ValueError("cpu must be a pinned host tensor (a UVA view maps pinned memory)")
    if not cpu.is_contiguous():
        raise ValueError("cpu must be contiguous")
    raw = torch.as_tensor(_Interface(cpu), device=f"cuda:{torch.cuda.current_device()}")
    return raw.view(cpu.dtype).view(cpu.shape)


def target() -> Target:
    ns = bu_fork("b29", names={"uva_view": uva_view})
    return make_target("b29_uva_empty_view_on_host", buffer_utils=ns)
