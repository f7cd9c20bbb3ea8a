"""b04 (CPU): ``UvaBufferPool.copy_to_uva`` writes the step first and grows the slot on numpy's ``ValueError``; a tensor step too long raises torch's ``RuntimeError``.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (the growth branch).

Change: "easier to ask forgiveness" for the rare growth ("steps almost always fit their slot: try
the write, and grow only when numpy says it does not fit, instead of comparing lengths first")::

    if n > buf.cpu.shape[0]:                                                      # reference
        capacity = 1 << (n - 1).bit_length()
        ...grow...
    dst = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x

    dst = buf.cpu if isinstance(x, torch.Tensor) else buf.np                     # bug
    try:
        dst[:n] = x
    except ValueError:                 # numpy: "could not broadcast input array from shape (2,) into shape (1,)"
        if n <= buf.cpu.shape[0]:
            raise
        capacity = 1 << (n - 1).bit_length()
        ...grow..., then dst[:n] = x again

Lists and ndarrays (written through ``.np``) grow as before. A tensor step is written through
``.cpu``, and torch refuses an assignment of the wrong length with ``RuntimeError`` ("The expanded
size of the tensor (1) must match the existing size (2)"), not ``ValueError``: the growth never
happens, and every tensor step longer than its slot fails (the pool takes ``x: torch.Tensor |
np.ndarray | list``; ``UvaBackedTensor`` sends arrays that always fit, and is unaffected).

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool``: "``copy_to_uva(x)`` writes ``x`` into the next
slot (growing it to the next power of two rows when ``len(x)`` exceeds it) and returns the slot's view
of ``len(x)`` rows"; docs/contracts.md, pool: "fed a drawn schedule of 2-12 steps (lists, arrays or
tensors, some longer than a slot, so slots grow)".

Smallest input: ``UvaBufferPool(1, torch.int32).copy_to_uva(torch.tensor([1, 2], dtype=torch.int32))``.
Reference: ``tensor([1, 2], dtype=torch.int32)``. Bug: ``RuntimeError: The expanded size of the tensor (1)
must match the existing size (2) at non-singleton dimension 0. ...`` (the same step as a list: ``[1, 2]``).
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
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    try:
        dst[:n] = x  # the common case: the step fits its slot
    except ValueError:  # BUG (r56 b04): numpy's exception for a short slot; torch's (tensor steps) is RuntimeError
        if n <= buf.cpu.shape[0]:
            raise
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
        dst = buf.cpu if isinstance(x, torch.Tensor) else buf.np
        dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b04")
    return make_target(
        "b04_pool_grows_on_write_failure",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
