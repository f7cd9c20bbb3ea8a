"""b12 (CPU): a pool slot grows by doubling its current row count until the step fits; a slot of 0 rows never does.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (growth; ``copy_to_gpu`` and ``UvaBackedTensor``
through it).

Change: growth written as amortised doubling ("double the slot until the step fits: the usual vector growth,
and it keeps slots at their initial size times a power of two")::

    capacity = 1 << (n - 1).bit_length()                                             # reference

    capacity = buf.cpu.shape[0]                                                      # bug
    while capacity < n:
        capacity *= 2

Doubling starts from the slot's current rows. A slot made with 0 rows stays at 0 (``0 * 2 == 0``) and the loop
never ends: the first step with a row hangs the calling thread, holding nothing it could be interrupted out of.
Pools of 0 rows are ordinary: ``FusedStagedWriter(device, max_writes=0)`` (vLLM sizes its pools with
``max_writes``, 0 for a model without writes), ``UvaBufferPool(0, dtype)`` for tables that start empty.
(Slots with rows grow correctly, to the initial size times a power of two: ``3 -> 6``, where the reference
grows to 4; values are unaffected.)

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool``: "``copy_to_uva(x)`` writes ``x`` into the next slot
(growing it to the next power of two rows when ``len(x)`` exceeds it) and returns the slot's view";
docs/reference.md, Model Runner V2: "an empty pool slot (``FusedStagedWriter(device, 0)``) works as with vLLM's op".

Smallest input: ``UvaBufferPool(0, torch.int32).copy_to_uva([1])``.
Reference: ``tensor([1], dtype=torch.int32)``. Bug: never returns (an endless loop).
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
        capacity = buf.cpu.shape[0]
        while capacity < n:  # BUG (r58 b12): a slot of 0 rows stays at 0: never ends
            capacity *= 2
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x.is_neg() or x.is_conj():
            x = x.resolve_neg().resolve_conj()
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b12")
    return make_target(
        "b12_pool_growth_doubles_from_slot",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b12", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
