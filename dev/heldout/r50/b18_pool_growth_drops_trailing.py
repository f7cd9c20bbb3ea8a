"""b18 (CPU): a grown pool slot built from its row count alone (``self._buffer_cls(capacity, ...)``): the trailing dimensions are lost.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva``, the growth.

Change (one argument)::

    grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)   # reference
    grown = self._buffer_cls(capacity, self.dtype)                          # bug: "size is an int or a shape"

Buffers take an int as a 1-D size, so for 1-D pools (token ids, positions: what the
engineer's tests used) nothing changes. A pool of 2-D rows (block tables, ``(rows,
max_blocks)``) gets a 1-D slot when a step outgrows it: the shape check passes (it compares
``x`` with the pool's shape, not the slot's), then ``dst[:n] = x`` fails (numpy's ``ValueError``
for a list or an array, torch's ``RuntimeError`` for a tensor), and the slot stays 1-D, so every
later step that reaches it fails too, even short ones.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool`` docstring: "Round-robin slots ...
that grow their first dimension" and "``copy_to_uva(x)`` writes ``x`` into the next slot
(growing it to the next power of two rows when ``len(x)`` exceeds it) and returns the slot's
view of ``len(x)`` rows"; docs/contracts.md, pool: "(lists, arrays or tensors, some longer than
a slot, so slots grow): ... every reader reads its own step's rows, shape and values".

Smallest input: ``UvaBufferPool((1, 2), torch.int32).copy_to_uva([[1, 2], [3, 4]])``.
Reference: ``tensor([[1, 2], [3, 4]], dtype=torch.int32)``. Bug: ``ValueError: setting an array
element with a sequence. The requested array would exceed the maximum number of dimension of 1.``
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def copy_to_uva(self, x: torch.Tensor | np.ndarray | list[Any]) -> torch.Tensor:
    """Write ``x`` into the next slot and return its view of ``len(x)`` rows.

    Raises:
        TypeError: ``x`` is not a tensor, ndarray or list (or a tensor not on the host).
        ValueError: ``x``'s trailing shape differs from a slot's (vLLM broadcasts).
    """
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
        grown = self._buffer_cls(capacity, self.dtype)  # BUG (r50 b18): the trailing dimensions dropped
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b18")
    return make_target(
        "b18_pool_growth_drops_trailing",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b18", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
