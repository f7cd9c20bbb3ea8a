"""b09: ``CpuGpuBuffer.copy_to_gpu`` runs on the stream that was current when the buffer was built.

Engine pattern: the model runner allocates its persistent input buffers at start-up on
the default stream, then runs every step under ``with torch.cuda.stream(s)`` (a side
stream for the forward pass / CUDA-graph replay). Fault: the buffer looks its stream up
once, in ``__init__`` ("torch.cuda.current_stream costs about a microsecond"), and issues
every ``copy_to_gpu`` on it. Step k+1's copy then runs on the idle default stream at once,
while step k's kernels that still read ``.gpu`` are queued on ``s``: they read step k+1's
rows (and a kernel queued after the copy on ``s`` may read ``.gpu`` before it lands).
Invisible on the host: a CPU buffer keeps the reference's copies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from h2d_contracts import h2d_impl

from ._common import make_target

if TYPE_CHECKING:
    from h2d_contracts.contracts import Target


class CpuGpuBuffer(h2d_impl.CpuGpuBuffer):
    __doc__ = h2d_impl.CpuGpuBuffer.__doc__

    def __init__(self, *size: int, **kwargs: Any) -> None:
        super().__init__(*size, **kwargs)
        # FAULT: the stream is fixed at construction, not looked up per copy
        self._stream = torch.cuda.current_stream(self.gpu.device) if self.gpu.device.type == "cuda" else None

    def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
        if self._stream is None:
            return super().copy_to_gpu(n)
        with torch.cuda.stream(self._stream):
            return super().copy_to_gpu(n)


def target() -> Target:
    return make_target("r23-b09-buffer-stream-at-init", buffer_cls=CpuGpuBuffer,
                       notes="CpuGpuBuffer.copy_to_gpu on the stream current at construction")
