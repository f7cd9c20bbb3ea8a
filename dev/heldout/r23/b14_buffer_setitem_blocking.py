"""b14: ``CpuGpuBuffer.copy_to_gpu`` written as slice assignment, a blocking copy behind the busy stream.

Engine pattern: ``copy_to_gpu(num_reqs + 1)`` every step while the previous step's
forward pass is still queued (async scheduling relies on the host running ahead).
Fault: the copy was "simplified" to ``self.gpu[:n] = self.cpu[:n]``; ``__setitem__`` copies
with ``non_blocking=False``, so even from pinned memory torch synchronizes the stream:
the host thread stalls until all queued GPU work has finished (tens of ms per step), and
the scheduler's overlap is gone. Values are right.
Invisible on the host: on a CPU buffer the assignment is the same copy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from h2d_contracts import h2d_impl

from ._common import make_target

if TYPE_CHECKING:
    from h2d_contracts.contracts import Target


class CpuGpuBuffer(h2d_impl.CpuGpuBuffer):
    __doc__ = h2d_impl.CpuGpuBuffer.__doc__

    def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
        n = self._rows(n)
        if n is None:
            self.gpu[:] = self.cpu  # FAULT: a blocking copy (non_blocking=False)
            return self.gpu
        self.gpu[:n] = self.cpu[:n]  # FAULT: a blocking copy (non_blocking=False)
        return self.gpu[:n]


def target() -> Target:
    return make_target("r23-b14-buffer-setitem-blocking", buffer_cls=CpuGpuBuffer,
                       notes="CpuGpuBuffer.copy_to_gpu as slice assignment (non_blocking=False)")
