"""b19 (CPU): ``copy_to_gpu(n)`` returns the whole ``.gpu`` buffer instead of ``.gpu[:n]``.

The change: in ``CpuGpuBuffer.copy_to_gpu``, ``return self.gpu[:n].copy_(...)`` became
``self.gpu[:n].copy_(...); return self.gpu``.

Why an engineer writes it: under CUDA graphs the consumer must read a tensor of fixed
address *and shape*; returning the full static buffer (rows ``n`` on padded) lets the
runner pass the result straight into a captured graph.

What breaks: ``copy_to_gpu(n)`` "return[s] that view of the destination" -- ``.gpu[:n]``, of
shape ``(n, *size[1:])`` (docs/reference.md, buffer contract). ``CpuGpuBuffer(3,
dtype=torch.int32, device="cpu").copy_to_gpu(2)`` has shape ``(3,)``, not ``(2,)``: a
consumer of the result reads the stale row 2 as if it were input.
"""

from __future__ import annotations

from h2d_contracts.h2d_impl import buffer as _buffer

from ._common import make_target, rebind


def copy_to_gpu(self, n=None):
    n = self._rows(n)
    if n is None:
        return self.gpu.copy_(self.cpu, non_blocking=True)
    self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)
    return self.gpu  # BUG: the whole static buffer (for CUDA graphs), not the n-row view


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    copy_to_gpu = rebind(copy_to_gpu, _buffer)


def target():
    return make_target("b19-copy-to-gpu-returns-whole", buffer_cls=CpuGpuBuffer)
