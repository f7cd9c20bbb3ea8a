"""b12 (CPU): ``UvaBufferPool`` tracks one capacity for the whole pool; slots not yet grown are taken as grown.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (the growth test).

Change: a refactor ("every slot starts at ``size[0]`` rows and grows the same way: keep the rows on
the pool instead of reading each slot's ``.cpu.shape``")::

    if n > buf.cpu.shape[0]:                                                     # reference
        ...

    rows = self.__dict__.setdefault("_rows", self._shape[0])                     # bug
    if n > rows:
        ...
        self._rows = capacity

Slots grow one at a time, when the ring reaches them; the pool-wide count says every slot has
the rows of the one grown last. The next step of that length into another slot skips the growth
and writes ``n`` rows into a slot of fewer (numpy: "could not broadcast", torch: a size error), and
the refused step leaves the cursor where it was, so every later step of that length into that slot
fails too: a pool that fills a batch larger than ``size[0]`` twice in a row fails on the second.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool``: "``copy_to_uva(x)`` writes ``x`` into the
next slot (growing it to the next power of two rows when ``len(x)`` exceeds it)"; docs/contracts.md,
pool: "fed a drawn schedule of 2-12 steps (..., some longer than a slot, so slots grow): ... every
reader reads its own step's rows, shape and values".

Smallest input: ``p = UvaBufferPool(1, torch.int32); p.copy_to_uva([1, 2]); p.copy_to_uva([3, 4])``.
Reference: ``tensor([3, 4], dtype=torch.int32)``. Bug: ``ValueError: could not broadcast input array from shape (2,) into shape (1,)``.
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
    rows = self.__dict__.setdefault("_rows", self._shape[0])  # rows a slot holds, kept for the pool
    if n > rows:  # BUG (r54 b12): one count for all slots; only this slot grows
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
        self._rows = capacity
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b12")
    return make_target(
        "b12_pool_capacity_tracked_once",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b12", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
