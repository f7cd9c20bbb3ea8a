"""b02 (CPU): a pool slot grown for a tensor step is allocated in the tensor's dtype, not the pool's.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (the growth branch).

Change (one argument)::

    grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)                                   # reference
    grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]),
                             x.dtype if isinstance(x, torch.Tensor) else self.dtype)                       # bug

("allocate the grown slot like the tensor it is about to hold: no converting copy"). A tensor
of the pool's dtype, every list and array, and every step that fits its slot behave as the
reference. A tensor of another dtype that makes its slot grow gets back a view in *its* dtype
(int64 from a float32 pool), and the slot keeps that dtype: later steps of that slot (lists
included) are stored as int64 (``[0.5]`` becomes ``0``).

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool`` docstring: "``size``: each slot's
initial shape. ``dtype``: the element dtype" and "``copy_to_uva(x)`` writes ``x`` into the next
slot (growing it to the next power of two rows ...)"; docs/contracts.md, pool: "A step may be a
tensor of another dtype (bfloat16 into a float32 pool, int64 into int32), converted by the copy as
torch's ``copy_`` converts it", with steps "longer than a slot, so slots grow".

Smallest input: ``UvaBufferPool(1, torch.float32).copy_to_uva(torch.tensor([1, 2]))``.
Reference: ``tensor([1., 2.])`` (float32). Bug: ``tensor([1, 2])`` (int64).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def copy_to_uva(self: Any, x: torch.Tensor | np.ndarray | list[Any]) -> torch.Tensor:
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
        grown = self._buffer_cls(
            (capacity, *buf.cpu.shape[1:]),
            x.dtype if isinstance(x, torch.Tensor) else self.dtype,  # BUG (r52 b02): the step's dtype, not the pool's
        )
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b02")
    return make_target(
        "b02_pool_growth_in_input_dtype",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
