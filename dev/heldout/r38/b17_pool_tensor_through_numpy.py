"""b17 (CPU-visible, buffer_utils.py ``UvaBufferPool.copy_to_uva``): tensors are written into the slot through its numpy view.

What changed: ``dst = buf.cpu if isinstance(x, torch.Tensor) else buf.np`` became
``dst = buf.np``.

Why an engineer would write it: "``.np`` and ``.cpu`` are the same memory; one destination
for every input kind, and numpy's setitem is cheaper than torch's". But numpy has to
convert the tensor first (``Tensor.__array__``): a bfloat16 tensor has no numpy dtype
(``TypeError``), a tensor that requires grad refuses ``numpy()`` (``RuntimeError``), a
conj/neg view refuses it too; torch's setitem converts all of them.

Promise broken: ``copy_to_uva(x)`` takes "a tensor, ndarray or list" and "writes ``x`` into the
next slot" (docstring; docs/reference.md: the reference keeps vLLM's ``UvaBufferPool``
constructors and methods, vLLM writes tensors with torch); contracts.md pool: each step sent
by ``copy_to_uva(x)`` with "lists, arrays or tensors", every reader reads its own step's
values. A bfloat16 activation-side tensor into a float32 pool is refused.

Smallest input: ``UvaBufferPool(4, torch.float32).copy_to_uva(torch.tensor([1.5], dtype=torch.bfloat16))``.
Reference: ``tensor([1.5000])``. Bug: ``TypeError: Got unsupported ScalarType BFloat16``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer_utils as _bu

from ._common import buffer_utils_ns, fork, make_target, rebind


def copy_to_uva(self, x: torch.Tensor | np.ndarray | list[Any]) -> torch.Tensor:
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
    dst: Any = buf.np  # BUG: tensors too go through numpy (bf16, requires-grad, neg/conj tensors cannot)
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


class BuggyUvaBufferPool(_bu.UvaBufferPool):
    copy_to_uva = rebind(copy_to_uva, _bu)


def target() -> Target:
    f = fork("b17")
    return make_target(
        "b17_pool_tensor_through_numpy",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(UvaBufferPool=BuggyUvaBufferPool),
    )
