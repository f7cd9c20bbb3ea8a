"""b13 (CPU): the pool's row-shape check is rewritten with ``not``, whose precedence makes it test the wrong thing.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (every step: ``copy_to_uva``, ``copy_to_gpu``, every
``UvaBackedTensor`` refresh).

Change: the condition restated positively ("accept when the rank and the row shape match; read as the rule
itself")::

    if len(shape) != len(self._shape) or tuple(shape[1:]) != self._shape[1:]:                # reference
        raise ValueError(...)

    if not len(shape) == len(self._shape) and tuple(shape[1:]) == self._shape[1:]:           # bug
        raise ValueError(...)

``not`` binds tighter than ``and``: the bug raises only when the ranks differ *and* the trailing shapes are equal,
which can never hold (equal trailing shapes imply equal ranks), where the intended ``not (A and B)`` raises when
either differs. The check is dead code that reads like the rule. Steps of another row shape reach ``dst[:n] = x``,
which broadcasts where it can: a step of rows of 1 into rows of 3 (``[[7]]``) is written as ``[[7, 7, 7]]``, a flat
list of 3 values into a ``(k, 3)`` pool is written into each of 3 rows (``[1, 2, 3]`` becomes three rows
``[1, 2, 3]``); only shapes numpy and torch cannot broadcast (a 2-D list into a 1-D pool) still fail, deep in numpy
or torch, with a message that does not name ``x``.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool.copy_to_uva``: "Raises: ValueError: ``x``'s trailing shape
differs from a slot's (vLLM broadcasts)"; docs/contracts.md, pool: "``x`` whose rows have another shape than a
slot's (2-D rows into 1-D slots, rows of 2 into rows of 3, a flat list into rows of 3) raises ``ValueError`` or
``TypeError``".

Smallest input: ``UvaBufferPool((2, 3), torch.int32).copy_to_uva([[7]])``.
Reference: ``ValueError: x has shape (1, 1); a slot holds rows of shape (3,)``. Bug: ``tensor([[7, 7, 7]],
dtype=torch.int32)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def copy_to_uva(self: Any, x: Any) -> torch.Tensor:
    """Write ``x`` into the next slot and return its view of ``len(x)`` rows."""
    if isinstance(x, torch.Tensor):
        if x.device.type != "cpu":
            raise TypeError(f"x must be on the host, got a tensor on {x.device}")
        shape = tuple(x.shape)
    elif isinstance(x, (np.ndarray, list)):
        shape = np.shape(x)
    else:
        raise TypeError(f"x must be a tensor, ndarray or list, got {type(x).__name__}")
    if not len(shape) == len(self._shape) and tuple(shape[1:]) == self._shape[1:]:  # BUG (r59 b13): (not A) and B
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
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x.is_neg() or x.is_conj():
            x = x.resolve_neg().resolve_conj()
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b13")
    return make_target(
        "b13_pool_shape_check_not_precedence",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b13", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
