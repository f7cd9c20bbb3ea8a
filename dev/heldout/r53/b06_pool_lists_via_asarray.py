"""b06 (CPU): ``UvaBufferPool.copy_to_uva`` turns a list into an array first: ints out of the pool's range wrap.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (lists and arrays).

Change: lists and arrays take one array ("shape and values from one ``np.asarray``, no second
walk of the list")::

    elif isinstance(x, (np.ndarray, list)):                    # reference
        shape = np.shape(x)
    ...
    buf.np[:n] = x              # a list: numpy converts each Python int to the slot's dtype

    elif isinstance(x, (np.ndarray, list)):                    # bug
        x = np.asarray(x)
        shape = x.shape
    ...
    buf.np[:n] = x              # an int64 array: numpy's array assignment casts unsafely

The list is now an int64 (or float64) array in numpy's own dtype, and numpy's assignment of an
array into a narrower slot wraps silently, where the assignment of a list checks each Python
int against the slot's dtype and raises ``OverflowError``. In-range values are the same; an
out-of-range int (a sentinel ``2**31``, ``-1`` into uint8) becomes another value in the slot.

Promise broken: docs/contracts.md, pool: "every reader reads its own step's rows, shape and
values"; h2d_impl/buffer_utils.py module docstring: "bounds are exceptions naming the argument
..., raised before anything is staged or written" (the reference: numpy's ``OverflowError`` from
the list assignment; no value is ever wrapped).

Smallest input: ``UvaBufferPool(2, torch.int32).copy_to_uva([2**40])``.
Reference: ``OverflowError: Python integer 1099511627776 out of bounds for int32``. Bug: ``tensor([0], dtype=torch.int32)``.
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
    elif isinstance(x, (np.ndarray, list)):
        x = np.asarray(x)  # BUG (r53 b06): a list becomes an array in numpy's dtype; its assignment then wraps
        shape = x.shape
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
    f = fork("b06")
    return make_target(
        "b06_pool_lists_via_asarray",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
