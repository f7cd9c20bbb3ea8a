"""b17 (CPU): the pool's round-robin cursor never advances: every step writes the same slot, over the view a reader still holds.

Where: h2d_impl/buffer_utils.py, ``UvaBufferPool.copy_to_uva``.
Change: the cursor is read into a local first (``curr = self._curr``; ``nxt = (curr + 1) %
    self.max_concurrency``), and the final ``self._curr = nxt`` became ``curr = nxt``.
Why plausible: a readability refactor that introduced the local alias ``curr`` and updated "it" at
    the end; rebinding a local name does not write the attribute, and nothing fails: every
    call gets a valid slot, the same one.
Promise broken: UvaBufferPool's docstring: "``copy_to_uva(x)`` writes ``x`` into the next slot ... A
    reader of that view sees its data until ``max_concurrency`` more calls have come";
    contracts.md pool: "every reader reads its own step's rows".
Smallest input:
    p = UvaBufferPool(2, torch.int32, 2); a = p.copy_to_uva([1, 1]); p.copy_to_uva([2, 2]); a
Reference: ``a == [1, 1]`` (the second call took the other slot). Bug: ``a == [2, 2]``. With
    ``max_concurrency=1`` both are the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target


def copy_to_uva(self, x: Any) -> torch.Tensor:
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
    curr = self._curr
    nxt = (curr + 1) % self.max_concurrency
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    curr = nxt  # BUG: rebinds the local alias; self._curr never advances  # noqa: F841
    return buf.uva(n)


def classes():
    return bu_fork("b17", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}})


def target() -> Target:
    return bu_target("b17", "b17_pool_cursor_local_alias", classes())
