"""b16 (CPU): ``copy_to_cpu(n)`` copies host to device (its body pasted from ``copy_to_gpu``).

The change: in ``CpuGpuBuffer.copy_to_cpu``, the row-slice branch
``return self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)`` became
``return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)`` (the whole-buffer branch,
``n=None``, is still right).

Why an engineer writes it: the two methods were rewritten together (bounds checks via
``_rows``) and the sliced line was pasted from ``copy_to_gpu``; the tests only read back
whole buffers (``copy_to_cpu()``).

What breaks: ``copy_to_cpu(n)`` copies rows ``[0, n)`` of ``.gpu`` into ``.cpu`` and returns
``.cpu[:n]`` (docs/reference.md, buffer contract: state machine against a numpy model).
Here ``.cpu`` is left unchanged, rows ``[0, n)`` of ``.gpu`` are overwritten with the stale
host rows, and the returned view is of ``.gpu``.
"""

from __future__ import annotations

from h2d_contracts.h2d_impl import buffer as _buffer

from ._common import make_target, rebind


def copy_to_cpu(self, n=None):
    n = self._rows(n)
    if n is None:
        return self.cpu.copy_(self.gpu, non_blocking=True)
    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)  # BUG: pasted from copy_to_gpu: wrong direction


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    copy_to_cpu = rebind(copy_to_cpu, _buffer)


def target():
    return make_target("b16-copy-to-cpu-direction", buffer_cls=CpuGpuBuffer)
