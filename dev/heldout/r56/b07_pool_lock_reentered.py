"""b07 (CPU): ``UvaBufferPool`` guards both public methods with one non-reentrant lock; ``copy_to_gpu`` calls ``copy_to_uva`` under it and blocks forever.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.__init__``, ``copy_to_uva``, ``copy_to_gpu``.

Change: a thread-safety fix ("with async scheduling the scheduler's thread and the runner's thread
both step the pools: the cursor's read-modify-write and the slot write race; hold the pool's lock
for the whole step")::

    self._curr = 0                                                               # reference (__init__)
    def copy_to_uva(self, x): <body>
    def copy_to_gpu(self, x, out=None):
        uva = self.copy_to_uva(x)
        ...

    self._curr = 0; self._lock = threading.Lock()                                # bug
    def copy_to_uva(self, x):
        with self._lock: <body>
    def copy_to_gpu(self, x, out=None):
        with self._lock:
            uva = self.copy_to_uva(x)
            ...

``copy_to_uva`` alone works (``UvaBackedTensor`` refreshes, the pools' steps), from any thread. But
``copy_to_gpu`` takes the lock and then calls ``copy_to_uva``, which waits for the same
``threading.Lock``: it is not reentrant, so the call never returns, and the pool is locked for every
other caller from then on. (A ``threading.RLock`` would have been right.)

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool.copy_to_gpu``: "``copy_to_uva(x)`` then a device
copy: a fresh clone, or ``out.copy_(view, non_blocking=True)``"; docs/contracts.md, pool: "Each step is
sent by a drawn method: ``copy_to_uva(x)``, ``copy_to_gpu(x)`` or ``copy_to_gpu(x, out=out)``".

Smallest input: ``UvaBufferPool(2, torch.int32).copy_to_gpu([1, 2])`` (in a thread, given 0.5 s).
Reference: returns ``tensor([1, 2], dtype=torch.int32)`` at once. Bug: blocked (the reproduction then
releases the lock by hand so the thread can end).
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
    self._curr = 0
    self._retired = []
    self._lock = threading.Lock()  # BUG (r56 b07): not reentrant, and copy_to_gpu re-enters it


def copy_to_uva(self: Any, x: torch.Tensor | np.ndarray | list[Any]) -> torch.Tensor:
    """Write ``x`` into the next slot and return its view of ``len(x)`` rows."""
    with self._lock:
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
        dst[:n] = x
        self._curr = nxt
        return buf.uva(n)


def copy_to_gpu(self: Any, x: torch.Tensor | np.ndarray, out: torch.Tensor | None = None) -> torch.Tensor:
    """``copy_to_uva(x)`` then a device copy: a fresh clone, or ``out.copy_(view, non_blocking=True)``."""
    with self._lock:  # BUG (r56 b07): held while copy_to_uva takes it again
        uva = self.copy_to_uva(x)
        return uva.clone() if out is None else out.copy_(uva, non_blocking=True)


def target() -> Target:
    f = fork("b07")
    return make_target(
        "b07_pool_lock_reentered",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork(
            "b07",
            names={"threading": threading},
            methods={"UvaBufferPool": {"__init__": __init__, "copy_to_uva": copy_to_uva, "copy_to_gpu": copy_to_gpu}},
        ),
    )
