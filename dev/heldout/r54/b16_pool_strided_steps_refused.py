"""b16 (CPU): ``UvaBufferPool.copy_to_uva`` refuses a step that is a non-contiguous array or tensor.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (a layout check added; ``copy_to_gpu``
goes through it).

Change: a guard ("a slot is filled by one row-major copy; a strided step is a hidden gather, make
the caller copy it")::

    n = shape[0]                                                                 # reference

    if isinstance(x, np.ndarray) and not x.flags.c_contiguous or (               # bug
        isinstance(x, torch.Tensor) and not x.is_contiguous()
    ):
        raise ValueError("x must be contiguous: a slot is filled by one row-major copy")
    n = shape[0]

Lists, contiguous arrays and contiguous tensors behave as the reference. A strided step is
refused: a column of a 2-D table (``arr[:, 0]``), every other element (``arr[::2]``), a reversed
array, a transposed or Fortran-ordered 2-D array, a tensor's ``.t()`` or ``[:, k]``, all of which
the reference copies into the slot by numpy's or torch's assignment.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool.copy_to_uva``: "Raises: TypeError: ``x`` is
not a tensor, ndarray or list (or a tensor not on the host). ValueError: ``x``'s trailing shape
differs from a slot's" (a strided array is an ndarray of the slot's row shape); docs/contracts.md,
pool: "fed a drawn schedule of 2-12 steps (lists, arrays or tensors, ...): ... every reader reads
its own step's rows, shape and values".

Smallest input: ``UvaBufferPool(2, torch.int32).copy_to_uva(np.arange(4, dtype=np.int32)[::2])``.
Reference: ``tensor([0, 2], dtype=torch.int32)``. Bug: ``ValueError: x must be contiguous: a slot is filled by one row-major copy``.
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
        shape = np.shape(x)
    else:
        raise TypeError(f"x must be a tensor, ndarray or list, got {type(x).__name__}")
    if len(shape) != len(self._shape) or tuple(shape[1:]) != self._shape[1:]:
        raise ValueError(f"x has shape {tuple(shape)}; a slot holds rows of shape {self._shape[1:]}")
    if (isinstance(x, np.ndarray) and not x.flags.c_contiguous) or (  # BUG (r54 b16): strided steps refused
        isinstance(x, torch.Tensor) and not x.is_contiguous()
    ):
        raise ValueError("x must be contiguous: a slot is filled by one row-major copy")
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
    f = fork("b16")
    return make_target(
        "b16_pool_strided_steps_refused",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b16", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
