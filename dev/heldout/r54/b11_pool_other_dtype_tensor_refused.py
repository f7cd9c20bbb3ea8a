"""b11 (CPU): ``UvaBufferPool.copy_to_uva`` refuses a tensor step whose dtype is not the pool's.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (the tensor branch; ``copy_to_gpu``
goes through it).

Change: the rule of ``async_tensor_h2d`` ("``dtype`` disagreeing with ``out`` raises ``TypeError``;
it is never converted silently") carried over to the pool's slots::

    shape = tuple(x.shape)                                                       # reference

    if x.dtype != self.dtype:                                                    # bug
        raise TypeError(f"x.dtype={x.dtype} disagrees with the pool's dtype={self.dtype}; it is never converted silently")
    shape = tuple(x.shape)

Tensors of the pool's dtype, arrays and lists behave as the reference (arrays and lists are still
converted by numpy's assignment). A tensor of another dtype is refused: the common cases are an
int64 tensor (``torch.tensor([...])``'s default, ``torch.arange``) into an int32 index pool, and a
bfloat16 or float16 tensor into a float32 pool, which the reference converts as ``copy_`` does.

Promise broken: docs/contracts.md, pool: "A step may be a tensor of another dtype (bfloat16 into a
float32 pool, int64 into int32), converted by the copy as torch's ``copy_`` converts it";
h2d_impl/buffer_utils.py ``UvaBufferPool.copy_to_uva``: "Raises: TypeError: ``x`` is not a tensor,
ndarray or list (or a tensor not on the host)" (a host tensor of another dtype is neither).

Smallest input: ``UvaBufferPool(2, torch.int32).copy_to_uva(torch.tensor([1, 2]))``.
Reference: ``tensor([1, 2], dtype=torch.int32)``. Bug: ``TypeError: x.dtype=torch.int64 disagrees with the pool's dtype=torch.int32; ...``.
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
        if x.dtype != self.dtype:  # BUG (r54 b11): a converting copy refused
            raise TypeError(
                f"x.dtype={x.dtype} disagrees with the pool's dtype={self.dtype}; it is never converted silently"
            )
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
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b11")
    return make_target(
        "b11_pool_other_dtype_tensor_refused",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b11", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
