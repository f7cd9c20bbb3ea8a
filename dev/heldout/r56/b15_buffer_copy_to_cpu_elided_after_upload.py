"""b15 (CPU): on a host twin, ``copy_to_cpu(n)`` right after ``copy_to_gpu(m)`` (``n <= m``) copies nothing: "the rows were just sent".

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.copy_to_gpu`` (records the rows sent) and ``copy_to_cpu`` (skips
the copy); only where ``.gpu`` is host memory (``device='cpu'``: CPU platforms, the CPU worker).

Change: an optimisation for CPU platforms ("there ``.gpu`` is host memory and the round trip
``copy_to_gpu(n)`` then ``copy_to_cpu(n)`` copies the same bytes back: remember what was sent and
skip the copy back")::

    n = self._rows(n)                                                            # reference (copy_to_cpu)
    if n is None:
        return self.cpu.copy_(self.gpu, non_blocking=True)
    return self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)

    n = self._rows(n)                                                            # bug
    rows = self.capacity if n is None else n
    if self.gpu.device.type == "cpu" and rows <= self.__dict__.get("_in_sync", -1):
        return self.cpu if n is None else self.cpu[:n]
    ...                                 # copy_to_gpu sets self._in_sync to the rows it copied

What the buffer cannot see is ``.gpu`` written in between: on the CPU worker the model's own ops write
the host "device" tensors (sampled token ids, computed lengths) and ``copy_to_cpu`` is how they come
back. After an upload those writes never reach ``.cpu``/``.np``: the caller reads its own stale rows,
values that look right because they are the ones it uploaded. (A CUDA twin is unaffected.)

Promise broken: h2d_impl/buffer.py ``CpuGpuBuffer.copy_to_cpu``: "Copy rows ``[0, n)`` of ``.gpu`` back to ``.cpu``
with ``non_blocking=True``"; docs/contracts.md, buffer: "``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` copy exactly
rows ``[0, n)`` (all rows for ``n=None``), leave the other rows alone ... write through torch (the
destination's version counter advances)".

Smallest input: ``b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); b.copy_to_gpu(); b.gpu.fill_(5);
b.copy_to_cpu(); b.cpu``.
Reference: ``tensor([5, 5], dtype=torch.int32)``. Bug: ``tensor([0, 0], dtype=torch.int32)``.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer


def copy_to_gpu(self: Any, n: int | None = None) -> torch.Tensor:
    n = self._rows(n)
    self._in_sync = self.capacity if n is None else n  # BUG (r56 b15): rows taken to be equal on both sides from now on
    if n is None:
        return self.gpu.copy_(self.cpu, non_blocking=True)
    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)


def copy_to_cpu(self: Any, n: int | None = None) -> torch.Tensor:
    n = self._rows(n)
    rows = self.capacity if n is None else n
    if self.gpu.device.type == "cpu" and rows <= self.__dict__.get("_in_sync", -1):  # BUG (r56 b15): skipped
        return self.cpu if n is None else self.cpu[:n]
    if n is None:
        return self.cpu.copy_(self.gpu, non_blocking=True)
    return self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    copy_to_gpu = rebind(copy_to_gpu, buffer)
    copy_to_cpu = rebind(copy_to_cpu, buffer)


def target() -> Target:
    f = fork("b15")
    return make_target(
        "b15_buffer_copy_to_cpu_elided_after_upload",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b15"),
    )
