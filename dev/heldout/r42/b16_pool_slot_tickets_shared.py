"""b16 (CPU): every ``UvaBufferPool`` draws its round-robin slot from one class-wide counter: two pools used in turn overwrite readers' slots early.

Where: h2d_impl/buffer_utils.py, ``UvaBufferPool.copy_to_uva`` (and a class attribute).
Change: ``nxt = (self._curr + 1) % self.max_concurrency`` -> ``nxt = next(self._tickets) %
    self.max_concurrency``, with ``_tickets = itertools.count()`` declared in the class body.
Why plausible: meant to make slot assignment thread-safe ("``next()`` on an ``itertools.count`` is
    atomic under the GIL, a read-modify-write of ``_curr`` is not"); declared next to the class's
    other defaults, the counter is shared by every pool, so each pool's consecutive steps no
    longer take consecutive slots once another pool (another ``UvaBackedTensor``) draws in
    between. One pool used alone still rotates correctly.
Promise broken: UvaBufferPool's docstring: "A reader of that view sees its data until
    ``max_concurrency`` more calls have come: with at most ``max_concurrency`` steps in flight
    every reader sees its own step's data"; contracts.md pool: "every reader reads its own
    step's rows" (and UvaBackedTensor: "every refresh's view keeps them until it is retired
    ``max_concurrency`` refreshes later").
Smallest input:
    p = UvaBufferPool(2, torch.int32, 2); q = UvaBufferPool(2, torch.int32, 2)
    a = p.copy_to_uva([1, 1]); q.copy_to_uva([5, 5]); p.copy_to_uva([2, 2]); a
Reference: ``a == [1, 1]`` (one later call of ``p``, depth 2). Bug: ``a == [2, 2]``: ``p``'s second call
    reused the slot of its first.
"""

from __future__ import annotations

import itertools
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
    nxt = next(self._tickets) % self.max_concurrency  # BUG: the class's one counter, shared by every pool
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


def classes():
    ns = bu_fork("b16", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}})
    ns.UvaBufferPool._tickets = itertools.count()  # BUG: (same edit) declared once, in the class body
    return ns


def target() -> Target:
    return bu_target("b16", "b16_pool_slot_tickets_shared", classes())
