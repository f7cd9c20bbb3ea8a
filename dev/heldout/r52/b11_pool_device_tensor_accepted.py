"""b11 (GPU-only): ``UvaBufferPool.copy_to_uva`` accepts a CUDA tensor and copies it back into the pinned slot.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (the host check of a tensor ``x``).

Change (one condition)::

    if x.device.type != "cpu":                    # reference
    if x.device.type not in ("cpu", "cuda"):      # bug: "a tensor already on the GPU is copied into the slot as well"

On a CPU-only host no CUDA tensor can exist: host tensors are accepted and a ``meta`` tensor is
refused with the same ``TypeError`` as the reference; behaviour there is identical. On a CUDA
host a device tensor is accepted: ``dst[:n] = x`` becomes a synchronous device-to-host copy
into the pinned slot (it waits for every kernel queued on the stream, in the step's hot path),
then the slot's UVA view is handed out (a round trip device -> host -> device read at kernel
time), where the reference refuses it before taking a slot.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool.copy_to_uva`` docstring: "TypeError:
``x`` is not a tensor, ndarray or list (or a tensor not on the host)".

Smallest input (CUDA): ``UvaBufferPool(4, torch.int32).copy_to_uva(torch.tensor([1, 2], dtype=torch.int32, device='cuda'))``.
Reference: ``TypeError: x must be on the host, got a tensor on cuda:0``.
Bug: returns the slot's UVA view ``tensor([1, 2], device='cuda:0', dtype=torch.int32)``; behind
queued work (``torch.cuda._sleep``) the call returns only after the stream drained.
CPU-only host: ``copy_to_uva(torch.zeros(2, dtype=torch.int32, device='meta'))`` raises the same
``TypeError`` for both.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def copy_to_uva(self: Any, x: torch.Tensor | np.ndarray | list[Any]) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        if x.device.type not in ("cpu", "cuda"):  # BUG (r52 b11): a CUDA tensor is accepted (copied back to the host)
            raise TypeError(f"x must be on the host, got a tensor on {x.device}")
        shape = tuple(x.shape)
    elif isinstance(x, (np.ndarray, list)):
        shape = np.shape(x)
    else:
        raise TypeError(f"x must be a tensor, ndarray or list, got {type(x).__name__}")
    if len(shape) != len(self._shape) or tuple(shape[1:]) != self._shape[1:]:
        raise ValueError(f"x has shape {tuple(shape)}; a slot holds rows of shape {self._shape[1:]}")
    n = shape[0]
    nxt = (self._curr + 1) % self.max_concurrency
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b11")
    return make_target(
        "b11_pool_device_tensor_accepted",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b11", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
