"""b06 (CPU): a tensor step that fills a whole slot becomes that slot's host tensor (no CPU-to-CPU copy).

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (and ``copy_to_gpu``, ``UvaBackedTensor`` through it).

Change: a zero-copy path ("a step that is already a contiguous host tensor of the pool's dtype and of the slot's
shape: take it as the slot's host memory instead of copying it into the slot")::

    dst[:n] = x                                                                               # reference

    if isinstance(x, torch.Tensor) and x.dtype == self.dtype and x.shape == buf.cpu.shape \\
            and x.is_contiguous():                                                            # bug
        buf.cpu = x
    else:
        dst[:n] = x

The step's own view is right: ``NonUvaBuffer.uva(n)`` copies ``buf.cpu`` (now ``x``) into the twin. But the slot
now aliases the caller's tensor, and keeps it: the next tensor step into that slot (``max_concurrency`` calls later)
is written with ``buf.cpu[:n] = y``, into the caller's tensor, which the pool was only to read (an engine's
persistent input tensor, refilled each step, is overwritten by another step's rows). A list or array step into
that slot is written to ``buf.np``, which still views the slot's old memory, and the slot then sends ``buf.cpu``:
the earlier caller's tensor, not the step.

Promise broken: docs/reference.md, What it promises: "**``data`` is only read**: never padded, rewritten or byte-swapped
in place" (the pool's step is data for the device); h2d_impl/buffer_utils.py ``UvaBufferPool``: "``copy_to_uva(x)``
writes ``x`` into the next slot ... and returns the slot's view of ``len(x)`` rows"; docs/contracts.md, pool:
"every reader reads its own step's rows, shape and values".

Smallest input: ``p = UvaBufferPool(2, torch.int32, max_concurrency=1); a = torch.tensor([1, 2], dtype=torch.int32);
p.copy_to_uva(a); p.copy_to_uva(torch.tensor([3], dtype=torch.int32)); a``.
Reference: ``a == [1, 2]``. Bug: ``a == [3, 2]`` (and a list step ``[4]`` next returns ``[3]``, a's row).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def copy_to_uva(self: Any, x: torch.Tensor | np.ndarray | list[Any]) -> torch.Tensor:
    """Write ``x`` into the next slot and return its view of ``len(x)`` rows."""
    if isinstance(x, torch.Tensor):
        if x.device.type != "cpu":
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
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x.is_neg() or x.is_conj():
            x = x.resolve_neg().resolve_conj()
    if (
        isinstance(x, torch.Tensor)
        and x.dtype == self.dtype
        and tuple(x.shape) == tuple(buf.cpu.shape)
        and x.is_contiguous()
    ):
        buf.cpu = x  # BUG (r58 b06): the slot keeps the caller's tensor (later steps write into it)
    else:
        dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b06")
    return make_target(
        "b06_pool_adopts_whole_slot_tensor",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
