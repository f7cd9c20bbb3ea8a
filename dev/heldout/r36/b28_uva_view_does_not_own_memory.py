"""A ``UvaBuffer``'s device view no longer keeps its pinned host tensor alive.

What changed: the ``__cuda_array_interface__`` object behind the UVA view (``_Interface``)
held the pinned ``cpu`` tensor, so a view kept its memory alive. The change keeps only the
pointer (``_Interface`` stores ``cpu.data_ptr()``, not ``cpu``): "the view must not pin host
memory forever: ``UvaBuffer`` owns ``.cpu`` and the view is only valid while the buffer is
anyway".

Why an engineer writes it: it looks like a memory-leak fix (views handed to kernels or
stashed in metadata kept whole pinned blocks alive), and vLLM's compiled
``get_cuda_view_from_cpu_tensor`` returns a view that does not own the host memory either.

Promise broken: docs/reference.md ("The view holds the interface object, so the pinned
tensor lives as long as the view"), and through it the pool's growth promise ("a grown
pool slot's old pinned block is kept until the current stream has passed the growth"; a
reader's view of a dropped slot stays valid). A view that outlives its ``UvaBuffer`` reads
freed pinned memory: torch's caching host allocator hands the block to the next pinned
allocation of that size, and the view reads that tensor's bytes. GPU only (``UvaBuffer``
needs CUDA and pinned memory).

Smallest input (CUDA): ``u = UvaBuffer(1024, torch.int32); u.np[:] = 1; v = u.uva(); del u;
gc.collect(); torch.empty(1024, dtype=torch.int32, pin_memory=True).fill_(2)``: reference
``v`` reads all 1; bug ``v`` reads 2 (the new tensor's bytes).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl.buffer_utils import UvaBuffer, _dtype, _shape, uva_available

from ._common import buffer_utils_ns, make_target


class _PointerInterface:
    """``_Interface`` with the change: the pinned tensor's bytes described by pointer only."""

    def __init__(self, cpu: torch.Tensor) -> None:
        # BUG: the tensor itself is no longer kept (was: self.cpu = cpu)
        self.__cuda_array_interface__ = {
            "shape": (cpu.numel() * cpu.element_size(),),
            "typestr": "|u1",
            "data": (cpu.data_ptr(), False),
            "version": 3,
        }


def _uva_view(cpu: torch.Tensor) -> torch.Tensor:
    """``buffer_utils.uva_view``, unchanged but for the interface object it builds."""
    if not uva_available():
        raise RuntimeError("UVA is not available: needs a CUDA device and pinned host memory")
    if cpu.device.type != "cpu" or not cpu.is_pinned():
        raise ValueError("cpu must be a pinned host tensor (a UVA view maps pinned memory)")
    if not cpu.is_contiguous():
        raise ValueError("cpu must be contiguous")
    raw = torch.as_tensor(_PointerInterface(cpu), device=f"cuda:{torch.cuda.current_device()}")
    return raw.view(cpu.dtype).view(cpu.shape)


class PointerViewUvaBuffer(UvaBuffer):
    def __init__(self, size: int | Sequence[int], dtype: torch.dtype) -> None:
        shape, dtype = _shape(size), _dtype(dtype)
        if not uva_available():
            raise RuntimeError("UVA is not available")
        self.cpu = torch.zeros(shape, dtype=dtype, device="cpu", pin_memory=True)
        self.np = self.cpu.numpy()
        self._uva = _uva_view(self.cpu)


def target() -> Target:
    return make_target(
        "b28_uva_view_does_not_own_memory", buffer_utils=buffer_utils_ns(UvaBuffer=PointerViewUvaBuffer)
    )
