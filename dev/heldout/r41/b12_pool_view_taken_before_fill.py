"""b12 (CPU): ``UvaBufferPool.copy_to_uva`` takes the slot's view before writing ``x`` into the slot.

Where: ``UvaBufferPool.copy_to_uva``.

Change: ``return buf.uva(n)`` at the end became ``view = buf.uva(n)`` right after the
growth, before ``dst[:n] = x``, and ``return view`` at the end.

Why plausible: with a ``UvaBuffer`` slot the view is the pinned memory itself, so taking it
first and filling after is the same thing ("get the view, then fill it"). The pool's
fallback, ``NonUvaBuffer``, is not a view: its ``uva(n)`` copies ``.cpu`` into the twin at the
call, so the returned rows are the slot's previous contents. Every CPU host (and any host
without pinned memory) takes the fallback.

Promise broken: ``UvaBufferPool``: "``copy_to_uva(x)`` writes ``x`` into the next slot ... and
returns the slot's view of ``len(x)`` rows"; ``NonUvaBuffer``: "the values are the host's at the
call"; docs/contracts.md (pool): "every reader reads its own step's rows, shape and values";
``UvaBackedTensor``: "``.gpu``, a pool slot's view refreshed by ``copy_to_uva(n)``".

Smallest input: ``UvaBufferPool(2, torch.int32).copy_to_uva([5, 6])``.
Reference: [5, 6].
Bug: [0, 0] (the slot's previous contents: a new slot's zeros). ``copy_to_gpu`` and every
``UvaBackedTensor.copy_to_uva`` lag one use of the slot the same way.
"""

from __future__ import annotations

import numpy as np  # noqa: F401 (the method runs with the reference module's globals)
import torch  # noqa: F401

from ._bu import bu_fork, bu_target

TAG, SHORT = "b12", "b12_pool_view_taken_before_fill"


def copy_to_uva(self, x):
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
    view = buf.uva(n)  # BUG: the view is taken before the slot is filled (was: return buf.uva(n) at the end)
    dst = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return view


def classes():
    return bu_fork(TAG, methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}})


def target():
    return bu_target(TAG, SHORT, classes())
