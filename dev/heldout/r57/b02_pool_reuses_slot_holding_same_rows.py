"""b02 (CPU): a pool step equal to what one of its slots already holds is handed that slot's view again, without taking a slot.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (and ``copy_to_gpu``, ``UvaBackedTensor``'s refreshes
through it).

Change: an optimisation for steps that repeat ("sampling parameters and a decode batch's block counts rarely
change between steps: when a slot already holds exactly these rows, hand out its view again, no
CPU-to-CPU copy and no slot of the ring taken")::

    nxt = (self._curr + 1) % self.max_concurrency                                 # reference

    x_np = x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)   # bug (inserted before)
    for held in self._uva_bufs:
        if held.cpu.shape[0] >= n and np.array_equal(held.np[:n], x_np):
            return held.uva(n)
    nxt = (self._curr + 1) % self.max_concurrency

The values a caller gets are right at the call. What the reuse breaks is the ring's promise to the
caller: a view stays valid until ``max_concurrency`` more calls have come. A hit returns a slot the
cursor did not move past, usually the one the next miss writes: with the default depth 2, steps
``A, B, A, C`` give the second ``A`` the first ``A``'s slot, and ``C``, the very next call, overwrites
it. A reader of that view still queued (a kernel, or on a CPU host a reader of the twin) reads ``C``'s
rows after one call, where the reference keeps it two.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool``: "``copy_to_uva(x)`` writes ``x`` into the next slot
... A reader of that view sees its data until ``max_concurrency`` more calls have come: with at most
``max_concurrency`` steps in flight every reader sees its own step's data"; docs/contracts.md, pool: "with each
step's reader retired before its slot is reused (``max_concurrency`` steps later ...), every reader reads its
own step's rows".

Smallest input: ``p = UvaBufferPool(1, torch.int32); p.copy_to_uva([1]); p.copy_to_uva([2]); c = p.copy_to_uva([1]);
p.copy_to_uva([3]); c`` (default depth 2; ``c`` read one call after it was returned).
Reference: ``tensor([1], dtype=torch.int32)``. Bug: ``tensor([3], dtype=torch.int32)``.
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
    # a step a slot already holds (unchanged sampling params, a repeating decode batch): that slot's view again,
    # no CPU-to-CPU copy and no slot of the ring taken
    x_np = x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)
    for held in self._uva_bufs:
        if held.cpu.shape[0] >= n and np.array_equal(held.np[:n], x_np):  # BUG (r57 b02): a slot the ring reuses next
            return held.uva(n)
    nxt = (self._curr + 1) % self.max_concurrency
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x.detach() if isinstance(x, torch.Tensor) else x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b02")
    return make_target(
        "b02_pool_reuses_slot_holding_same_rows",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
