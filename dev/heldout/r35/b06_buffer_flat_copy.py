"""b06 (CPU): ``copy_to_gpu(n)`` copies the first ``n`` *elements*, not rows.

The change: in ``CpuGpuBuffer.copy_to_gpu``, ``self.gpu[:n].copy_(self.cpu[:n], ...)`` became a
copy of flat views, ``self.gpu.view(-1)[:n].copy_(self.cpu.view(-1)[:n], ...)``.

Why an engineer writes it: the hot buffers (input ids, positions, slot mapping) are 1-D
and ``n`` is the token count; a flat view makes the slice a single 1-D narrow whatever
the buffer's rank, and is identical for every 1-D buffer.

What breaks: ``copy_to_gpu(n)`` copies exactly rows ``[0, n)`` and returns ``.gpu[:n]``
(docs/reference.md, buffer contract). On a 2-D buffer (a block table),
``CpuGpuBuffer(2, 3, ...)``, ``copy_to_gpu(1)`` copies one element of row 0 and returns a
tensor of shape ``(1,)`` instead of ``(1, 3)``.
"""

from __future__ import annotations

from h2d_contracts.h2d_impl import buffer as _buffer

from ._common import make_target, rebind


def copy_to_gpu(self, n=None):
    n = self._rows(n)
    if n is None:
        return self.gpu.copy_(self.cpu, non_blocking=True)
    return self.gpu.view(-1)[:n].copy_(self.cpu.view(-1)[:n], non_blocking=True)  # BUG: n elements, not n rows


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    copy_to_gpu = rebind(copy_to_gpu, _buffer)


def target():
    return make_target("b06-buffer-flat-copy", buffer_cls=CpuGpuBuffer)
