"""b11 (CPU): ``UvaBufferPool.copy_to_uva`` stores a grown slot at the cursor's slot (``self._curr``), not at ``nxt``.

Where: ``UvaBufferPool.copy_to_uva``, the growth branch.

Change: ``buf = self._uva_bufs[nxt] = grown`` became ``buf = self._uva_bufs[self._curr] = grown``.

Why plausible: ``self._curr`` and ``nxt`` are both "the slot" in this method (the cursor is
advanced to ``nxt`` three lines later); an engineer writing the growth back uses the
attribute. The call itself is right: it writes into ``grown`` and returns its view. But the
ring now holds the grown buffer twice over time: at the previous step's slot (whose old
buffer is dropped from the ring) while ``nxt`` keeps its small buffer, so the next call,
landing on the previous slot index, writes into the buffer a reader was just handed.

Promise broken: ``UvaBufferPool``: "A reader of that view sees its data until
``max_concurrency`` more calls have come"; docs/contracts.md (pool): "with each step's reader
retired before its slot is reused (``max_concurrency`` steps later ...), every reader reads
its own step's rows, shape and values".

Smallest input: ``p = UvaBufferPool(1, torch.int32, 2); b = p.copy_to_uva([1, 2]);
p.copy_to_uva([3, 4]); b``.
Reference: ``b`` = [1, 2] (one call since, depth 2).
Bug: ``b`` = [3, 4] (the second call wrote into the grown buffer behind ``b``).
"""

from __future__ import annotations

import numpy as np  # noqa: F401 (the method runs with the reference module's globals)
import torch  # noqa: F401

from ._bu import bu_fork, bu_target

TAG, SHORT = "b11", "b11_pool_growth_stored_in_current_slot"


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
        buf = self._uva_bufs[self._curr] = grown  # BUG: was self._uva_bufs[nxt]
    dst = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def classes():
    return bu_fork(TAG, methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}})


def target():
    return bu_target(TAG, SHORT, classes())
