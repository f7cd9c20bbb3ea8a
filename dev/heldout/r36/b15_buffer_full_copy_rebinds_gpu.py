"""``CpuGpuBuffer.copy_to_gpu()`` (all rows) replaces ``.gpu`` with a fresh tensor.

What changed: ``copy_to_gpu(None)`` copied the whole host buffer into the existing device
tensor (``self.gpu.copy_(self.cpu, non_blocking=True)``). The change makes a new one,
``self.gpu = self.cpu.to(self.gpu.device, non_blocking=True, copy=True)``: "a fresh
allocation from the caching allocator costs nothing, and the copy then has no
write-after-read dependency on readers of the old ``.gpu``".

Why an engineer writes it: ``.to(copy=True)`` is the idiomatic upload, the attribute is
updated, and every call site that reads ``buf.gpu`` after the call sees the new data.

Promise broken: the buffer contract and docs/reference.md: ``copy_to_gpu(n)`` copies rows into
the buffer's device tensor and "return[s] that view of the destination (its storage, not a
copy)"; ``.gpu`` is the buffer's persistent device half. Anything holding ``.gpu`` from
before (a view taken once, a CUDA graph's static input, a twin registered with a kernel)
keeps the old memory and never sees the copy.

Smallest input: ``b = CpuGpuBuffer(2, dtype=torch.int32, device="cpu"); g = b.gpu;
b.cpu[:] = 5; b.copy_to_gpu()``: reference ``g`` reads ``[5, 5]`` (``g is b.gpu``); bug ``g``
still reads ``[0, 0]`` and ``b.gpu`` is another tensor.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import CpuGpuBuffer

from ._common import make_target


class ReboundGpuBuffer(CpuGpuBuffer):
    def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
        n = self._rows(n)
        if n is None:
            # BUG: a fresh device tensor (was: self.gpu.copy_(self.cpu, non_blocking=True))
            self.gpu = self.cpu.to(self.gpu.device, non_blocking=True, copy=True)
            return self.gpu
        return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)


def target() -> Target:
    return make_target("b15_buffer_full_copy_rebinds_gpu", buffer_cls=ReboundGpuBuffer)
