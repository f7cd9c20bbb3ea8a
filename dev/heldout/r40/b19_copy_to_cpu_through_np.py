"""b19 (CPU-visible): ``CpuGpuBuffer.copy_to_cpu(n)`` writes the rows through ``.np``, which may not exist.

Where: ``h2d_impl/buffer.py``, ``CpuGpuBuffer.copy_to_cpu`` (the ``n`` rows branch).

Change: ``return self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)`` ->
``self.np[:n] = self.gpu[:n].cpu().numpy(); return self.cpu[:n]``.

Why plausible: the model runner reads the sampled rows through ``.np``; "write them there
directly and skip torch's dispatch" reads as the same copy (``.np`` aliases ``.cpu``). But
``.np`` is optional: a buffer built with ``with_numpy=False`` (every bfloat16 or float8
buffer must be) raises ``AttributeError`` from the property, and torch's in-place write
(version counter) is gone too.

Promise broken: README buffer: "``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` copy exactly rows
``[0, n)``"; docs/contracts.md buffer: "Without ``.np`` every dtype round-trips bit for bit";
``copy_to_cpu`` Raises: only ``TypeError``/``IndexError`` for a bad ``n``.

Smallest input: ``buf = CpuGpuBuffer(2, dtype=torch.int32, device='cpu', with_numpy=False);
buf.copy_to_cpu(1)``.
Reference: returns ``buf.cpu[:1]`` (zeros, copied from ``.gpu``).
Bug: ``AttributeError: this CpuGpuBuffer was created with with_numpy=False and has no .np view``.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer

from ._common import buffer_utils_ns, make_target, rebind


def copy_to_cpu(self, n=None):  # type: ignore[no-untyped-def]
    n = self._rows(n)
    if n is None:
        return self.cpu.copy_(self.gpu, non_blocking=True)
    self.np[:n] = self.gpu[:n].cpu().numpy()  # BUG: through the optional numpy view
    return self.cpu[:n]


class _Buffer(CpuGpuBuffer):
    __doc__ = CpuGpuBuffer.__doc__
    copy_to_cpu = rebind(copy_to_cpu, _buffer)


def target() -> Target:
    return make_target("b19_copy_to_cpu_through_np", buffer_cls=_Buffer, buffer_utils=buffer_utils_ns())
