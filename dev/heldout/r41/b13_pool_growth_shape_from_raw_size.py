"""b13 (CPU): a grown ``UvaBufferPool`` slot takes its row shape from the raw ``size`` argument.

Where: ``UvaBufferPool.copy_to_uva``, the growth branch.

Change: ``grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)`` became
``grown = self._buffer_cls((capacity, *self.size[1:]), self.dtype)``.

Why plausible: "a slot's rows have the pool's row shape" and the pool keeps ``self.size``
(vLLM's attribute) next to the normalised ``self._shape``; tested with 2-D pools built from
tuples (block tables) it works. ``size`` as given may be an int (``UvaBufferPool(max_num_reqs,
torch.int32)``, the 1-D index tables), which has no ``[1:]``.

Promise broken: ``UvaBufferPool``: "``size``: each slot's initial shape"; "``copy_to_uva(x)``
writes ``x`` into the next slot (growing it to the next power of two rows when ``len(x)``
exceeds it)"; docs/contracts.md (pool): steps "some longer than a slot, so slots grow":
every reader reads its own step's rows.

Smallest input: ``UvaBufferPool(2, torch.int32).copy_to_uva([1, 2, 3])``.
Reference: [1, 2, 3] (the slot grown to 4 rows).
Bug: ``TypeError: 'int' object is not subscriptable`` (a ``size`` given as ``(2,)`` or ``[2, 3]`` works).
"""

from __future__ import annotations

import numpy as np  # noqa: F401 (the method runs with the reference module's globals)
import torch  # noqa: F401

from ._bu import bu_fork, bu_target

TAG, SHORT = "b13", "b13_pool_growth_shape_from_raw_size"


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
        grown = self._buffer_cls((capacity, *self.size[1:]), self.dtype)  # BUG: was *buf.cpu.shape[1:]
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
