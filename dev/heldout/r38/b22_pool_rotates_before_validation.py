"""b22 (CPU-visible, buffer_utils.py ``UvaBufferPool.copy_to_uva``): the round-robin cursor advances before ``x`` is validated.

What changed: the cursor update moved to the top of the method, in the usual idiom
``nxt = self._curr = (self._curr + 1) % self.max_concurrency`` (the ``self._curr = nxt`` after
the write was removed).

Why an engineer would write it: "advance the ring first, then fill the slot" reads
naturally, and every successful call rotates exactly as before. But a call refused by the
documented shape check (``ValueError``) now consumes a slot: the next call writes the slot
one step earlier than it should, i.e. the slot a reader from the previous step still holds.

Promise broken: bounds and shapes are "raised before anything is staged or written"
(docs/reference.md, Model Runner V2: "bounds are exceptions ..., raised before anything is
staged or written"; ``UvaBufferPool.copy_to_uva(x)`` with rows of another shape
``ValueError``); "A reader of that view sees its data until ``max_concurrency`` more calls have
come" (docstring; contracts.md pool). With depth 2 a reader is overwritten by the very next
successful call.

Smallest input: ``p = UvaBufferPool(4, torch.int32); a = p.copy_to_uva([1])``;
``p.copy_to_uva([[1, 2]])`` (refused: ``ValueError``); ``p.copy_to_uva([2])``; then ``a``.
Reference: ``a == tensor([1])``. Bug: ``a == tensor([2])`` (the reader of step 1 shows step 2's data).
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
    nxt = self._curr = (self._curr + 1) % self.max_concurrency  # BUG: the ring advances before x is validated
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
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    return buf.uva(n)


class BuggyUvaBufferPool(_bu.UvaBufferPool):
    copy_to_uva = rebind(copy_to_uva, _bu)


def target() -> Target:
    f = fork("b22")
    return make_target(
        "b22_pool_rotates_before_validation",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(UvaBufferPool=BuggyUvaBufferPool),
    )
