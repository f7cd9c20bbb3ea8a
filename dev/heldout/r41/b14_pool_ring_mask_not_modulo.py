"""b14 (CPU): ``UvaBufferPool``'s ring index uses a bit mask instead of a modulo.

Where: ``UvaBufferPool.copy_to_uva``.

Change: ``nxt = (self._curr + 1) % self.max_concurrency`` became
``nxt = (self._curr + 1) & (self.max_concurrency - 1)``.

Why plausible: the classic ring-buffer micro-optimisation; the default depth (2) and every
power of two (1, 4, 8) behave exactly as before. A depth that is not a power of two (3: a
batch queue of 2 plus the step being built) cycles through a subset: with 3 the mask is
``0b10`` and ``(0 + 1) & 2 == 0``, so every call lands on slot 0.

Promise broken: ``UvaBufferPool``: "``max_concurrency``: the number of slots ...; an int >= 1";
"A reader of that view sees its data until ``max_concurrency`` more calls have come";
docs/contracts.md (pool): "every reader reads its own step's rows" with readers retired
"``max_concurrency`` steps later".

Smallest input: ``p = UvaBufferPool(1, torch.int32, 3); a = p.copy_to_uva([1]); p.copy_to_uva([2]); a``.
Reference: ``a`` = [1].
Bug: ``a`` = [2] (depth 3 behaves as depth 1; depth 5 as 1, 6 as 2 slots of 6 ...).
"""

from __future__ import annotations

import numpy as np  # noqa: F401 (the method runs with the reference module's globals)
import torch  # noqa: F401

from ._bu import bu_fork, bu_target

TAG, SHORT = "b14", "b14_pool_ring_mask_not_modulo"


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
    nxt = (self._curr + 1) & (self.max_concurrency - 1)  # BUG: was % self.max_concurrency
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def classes():
    return bu_fork(TAG, methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}})


def target():
    return bu_target(TAG, SHORT, classes())
