"""b06 (CPU): ``UvaBufferPool`` keeps its round-robin cursor per thread; the slots stay shared.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.__init__`` and ``copy_to_uva`` (the cursor).

Change: a thread-safety fix ("the scheduler's thread and the runner's thread both fill the pool;
a shared ``self._curr`` read-modify-write races: give each thread its own cursor")::

    self._curr = 0                                                               # reference (__init__)
    nxt = (self._curr + 1) % self.max_concurrency                                # reference (copy_to_uva)
    ...
    self._curr = nxt

    self._cursor = threading.local()                                             # bug (__init__)
    nxt = (getattr(self._cursor, "curr", 0) + 1) % self.max_concurrency          # bug (copy_to_uva)
    ...
    self._cursor.curr = nxt

One thread sees the reference's rotation. But the slots are the pool's, not the thread's: every
thread starts its own rotation at slot 1, so the first call from a second thread writes the slot
that the first thread's latest reader still holds, one call later instead of ``max_concurrency``.
The values are plausible: the earlier reader silently reads the other thread's step.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool``: "A reader of that view sees its data
until ``max_concurrency`` more calls have come: with at most ``max_concurrency`` steps in flight
every reader sees its own step's data"; docs/contracts.md, pool: "with each step's reader retired
before its slot is reused (``max_concurrency`` steps later ...), every reader reads its own step's
rows, shape and values".

Smallest input: ``p = UvaBufferPool(2, torch.int32); a = p.copy_to_uva([1, 1])`` (main thread);
then in another thread ``p.copy_to_uva([2, 2])`` (joined); ``a``.
Reference: ``[1, 1]``. Bug: ``[2, 2]``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals)


def __init__(self: Any, size: int | Sequence[int], dtype: torch.dtype, max_concurrency: int | None = None) -> None:
    if max_concurrency is None:
        max_concurrency = DEFAULT_MAX_CONCURRENCY
    if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int):
        raise TypeError(f"max_concurrency must be an int, got {type(max_concurrency).__name__}")
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
    self.size = size
    self.dtype = _dtype(dtype)
    self.max_concurrency = max_concurrency
    self._shape = _shape(size)
    self._buffer_cls = UvaBuffer if uva_available() else NonUvaBuffer
    self._uva_bufs = [self._buffer_cls(self._shape, self.dtype) for _ in range(max_concurrency)]
    self._cursor = threading.local()  # BUG (r54 b06): a cursor per thread over slots shared by all threads
    self._retired = []


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
    nxt = (getattr(self._cursor, "curr", 0) + 1) % self.max_concurrency  # BUG (r54 b06): this thread's cursor
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._cursor.curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b06")
    return make_target(
        "b06_pool_cursor_per_thread",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork(
            "b06",
            names={"threading": threading},
            methods={"UvaBufferPool": {"__init__": __init__, "copy_to_uva": copy_to_uva}},
        ),
    )
