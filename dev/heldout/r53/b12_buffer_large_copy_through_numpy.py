"""b12 (CPU): a host-twin ``CpuGpuBuffer`` copies more than 32,768 elements through ``.np`` with ``np.copyto``.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.copy_to_gpu`` (a buffer whose ``.gpu`` is on the host:
CPU platforms).

Change: the serial-copy idea of ``h2d._serial_copy`` applied to the buffer ("torch runs a host
``copy_`` of more than 32,768 elements as an OpenMP region; numpy copies on this thread")::

    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)               # reference

    if self.gpu.device.type == "cpu" and rows * row_elems > 32768:             # bug
        np.copyto(self.gpu[:rows].numpy(), self.np[:rows])
        return self.gpu if n is None else self.gpu[:n]
    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)

Small copies and CUDA twins behave as the reference, and the values are right where ``.np``
exists. But a buffer built with ``with_numpy=False`` (bfloat16 and float8 buffers must be) has
no ``.np``: its large copies raise ``AttributeError``. And the copy bypasses torch: ``.gpu``'s
version counter is not bumped, so autograd's saved-tensor check and anything keyed on
``_version`` miss the write.

Promise broken: h2d_impl/buffer.py ``CpuGpuBuffer.copy_to_gpu``: "Copy rows ``[0, n)`` of ``.cpu`` to
``.gpu`` ... Raises: TypeError ... IndexError" (nothing else; ``with_numpy`` only governs ``.np``);
docs/contracts.md, buffer: "Without ``.np`` every dtype round-trips bit for bit".

Smallest input: ``CpuGpuBuffer(32769, dtype=torch.int32, device='cpu', with_numpy=False).copy_to_gpu()``.
Reference: the zero twin, shape ``(32769,)``. Bug: ``AttributeError: this CpuGpuBuffer was created with
with_numpy=False and has no .np view``. (With ``.np``: ``.gpu._version`` +1 by the reference, +0 by the bug.)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer

_GRAIN = 32768  # torch's serial grain (h2d._TORCH_GRAIN)


def copy_to_gpu(self: Any, n: int | None = None) -> torch.Tensor:
    n = self._rows(n)
    rows = self.capacity if n is None else n
    if self.gpu.device.type == "cpu" and rows * math.prod(self.cpu.shape[1:]) > _GRAIN:
        np.copyto(self.gpu[:rows].numpy(), self.np[:rows])  # BUG (r53 b12): through .np, outside torch
        return self.gpu if n is None else self.gpu[:n]
    if n is None:
        return self.gpu.copy_(self.cpu, non_blocking=True)
    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    copy_to_gpu = rebind(copy_to_gpu, buffer, math=math, _GRAIN=_GRAIN)


def target() -> Target:
    f = fork("b12")
    return make_target(
        "b12_buffer_large_copy_through_numpy",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b12"),
    )
