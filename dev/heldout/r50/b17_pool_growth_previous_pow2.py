"""b17 (CPU): a pool slot grows to the previous power of two (``1 << n.bit_length() - 1``), not the next: ``len(x)`` that is not a power of two no longer fits.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva``, the growth.

Change (one expression; the parentheses moved)::

    capacity = 1 << (n - 1).bit_length()   # reference: the smallest power of two >= n
    capacity = 1 << n.bit_length() - 1     # bug: `<<` binds looser than `-`: the largest power of two <= n

For ``n`` a power of two both give ``n``, which is what the engineer checked (1, 2, 4, 64
rows). For any other ``n`` the grown slot has fewer rows than ``x``: ``dst[:n] = x`` raises
numpy's ``ValueError`` ("could not broadcast input array from shape (3,) into shape (2,)"),
or torch's ``RuntimeError`` for a tensor ``x``, after the old slot was already replaced
(retired) by the too-small one. ``UvaBackedTensor``'s refreshes never grow (their rows are
fixed), so it is unaffected.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool`` docstring: "``copy_to_uva(x)``
writes ``x`` into the next slot (growing it to the next power of two rows when ``len(x)``
exceeds it) and returns the slot's view of ``len(x)`` rows"; docs/reference.md, "What the
reference keeps of vLLM's design: ... growth to the next power of two rows"; docs/contracts.md,
pool: "fed a drawn schedule of 2-12 steps (lists, arrays or tensors, some longer than a slot,
so slots grow): ... every reader reads its own step's rows, shape and values".

Smallest input: ``UvaBufferPool(1, torch.int32).copy_to_uva([1, 2, 3])``.
Reference: ``tensor([1, 2, 3], dtype=torch.int32)``. Bug: ``ValueError: could not broadcast input array
from shape (3,) into shape (2,)``.
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
        capacity = 1 << n.bit_length() - 1  # BUG (r50 b17): the previous power of two (precedence)
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b17")
    return make_target(
        "b17_pool_growth_previous_pow2",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b17", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
