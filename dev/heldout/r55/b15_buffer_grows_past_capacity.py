"""b15 (CPU): ``CpuGpuBuffer.copy_to_gpu(n)`` with ``n`` past the capacity grows the buffer (as ``UvaBufferPool`` grows its slots) instead of raising.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.copy_to_gpu`` (an int ``n`` greater than ``capacity``).

Change: the pool's growth rule brought to the buffer ("a batch one row larger than the buffer
should not kill the step: grow to the next power of two rows, as ``UvaBufferPool.copy_to_uva``
does, keeping the rows we have")::

    n = self._rows(n)                                                         # reference: IndexError past capacity

    if type(n) is int and n > self.capacity:                                  # bug
        rows = 1 << (n - 1).bit_length()
        cpu = torch.zeros((rows, *self.cpu.shape[1:]), dtype=self.cpu.dtype, device="cpu", pin_memory=self.cpu.is_pinned())
        gpu = torch.zeros((rows, *self.gpu.shape[1:]), dtype=self.gpu.dtype, device=self.gpu.device)
        cpu[: self.capacity] = self.cpu
        gpu[: self.capacity] = self.gpu
        self.cpu, self.gpu = cpu, gpu
        self._np = cpu.numpy() if self._np is not None else None
    n = self._rows(n)

The call returns ``n`` rows of plausible values (the old rows, then zeros) where the reference
raises ``IndexError``. But ``.cpu``, ``.gpu`` and ``.np`` are new objects at new addresses: an engine
that holds ``buf.np`` (vLLM's runner keeps ``self.input_ids.np``) or a CUDA graph captured on
``buf.gpu`` keeps writing and reading the old memory, which no later ``copy_to_gpu`` sends. The
rows past the old capacity are sent as zeros, not what the caller meant to fill.

Promise broken: h2d_impl/buffer.py ``CpuGpuBuffer.copy_to_gpu``: "n: number of rows, ``0 <= n <= capacity``
... Raises: ... IndexError: ``n`` outside ``[0, capacity]``; nothing is copied"; docs/contracts.md,
buffer: "``.cpu`` and ``.gpu`` staying the same objects at the same addresses (engines and captured
CUDA graphs hold them); ``n`` outside ``[0, capacity]`` raises ``IndexError``".

Smallest input: ``b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); cpu = b.cpu; b.copy_to_gpu(3)``.
Reference: ``IndexError: n=3 is outside [0, 2] (the buffer's row capacity)``; ``b.cpu is cpu``.
Bug: ``tensor([0, 0, 0], dtype=torch.int32)``; ``b.cpu is cpu`` False, ``b.capacity`` 4.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer


def copy_to_gpu(self: Any, n: int | None = None) -> torch.Tensor:
    if type(n) is int and n > self.capacity:  # BUG (r55 b15): grown (new .cpu/.gpu/.np) instead of IndexError
        rows = 1 << (n - 1).bit_length()
        cpu = torch.zeros(
            (rows, *self.cpu.shape[1:]), dtype=self.cpu.dtype, device="cpu", pin_memory=self.cpu.is_pinned()
        )
        gpu = torch.zeros((rows, *self.gpu.shape[1:]), dtype=self.gpu.dtype, device=self.gpu.device)
        cpu[: self.capacity] = self.cpu
        gpu[: self.capacity] = self.gpu
        self.cpu, self.gpu = cpu, gpu
        self._np = cpu.numpy() if self._np is not None else None
    n = self._rows(n)
    if n is None:
        return self.gpu.copy_(self.cpu, non_blocking=True)
    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    copy_to_gpu = rebind(copy_to_gpu, buffer)


def target() -> Target:
    f = fork("b15")
    return make_target(
        "b15_buffer_grows_past_capacity",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b15"),
    )
