"""b05 (CPU): ``UvaBufferPool.copy_to_uva`` takes tuples as well as lists.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (the type test).

Change: the sequence test widened ("a tuple of rows is a list of rows")::

    elif isinstance(x, (np.ndarray, list)):                    # reference
    elif isinstance(x, (np.ndarray, list, tuple)):             # bug

Lists, arrays and tensors behave as the reference. A tuple (``(1, 2)``, a ``torch.Size``, a
namedtuple of ints) is written into a slot and its view returned, where the pool refuses
anything but a tensor, an ndarray or a list with ``TypeError`` naming ``x``, as documented
(vLLM's pool indexes ``dst[:n] = x`` only for its own three kinds).

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool.copy_to_uva``: "Raises: TypeError: ``x`` is
not a tensor, ndarray or list (or a tensor not on the host)".

Smallest input: ``UvaBufferPool(2, torch.int32).copy_to_uva((1, 2))``.
Reference: ``TypeError: x must be a tensor, ndarray or list, got tuple``. Bug: ``tensor([1, 2], dtype=torch.int32)``.
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
    elif isinstance(x, (np.ndarray, list, tuple)):  # BUG (r53 b05): tuples accepted
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


def target() -> Target:
    f = fork("b05")
    return make_target(
        "b05_pool_tuples_accepted",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
