"""b01 (CPU): a pool call that grows its slot returns from the growth branch before the round-robin cursor moves.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (the growth branch).

Change: the growth branch was "simplified" into an early return ("a grown slot is fresh: fill
it and hand out its view straight away"); the cursor update at the end of the method is no
longer reached on that path::

    if n > buf.cpu.shape[0]:                                 # reference
        ...
        buf = self._uva_bufs[nxt] = grown
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)

    if n > buf.cpu.shape[0]:                                 # bug
        ...
        self._uva_bufs[nxt] = grown
        (grown.cpu if isinstance(x, torch.Tensor) else grown.np)[:n] = x
        return grown.uva(n)                                  # self._curr = nxt never runs

Every call that fits its slot behaves as the reference; values at the call are right on the
growth path too. But after a growth the cursor still points at the slot before, so the next
call takes the *same* slot again: the grown step's reader is overwritten one call later,
where ``max_concurrency`` calls were promised (with depth 2, the very next step).

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool`` docstring: "A reader of that view
sees its data until ``max_concurrency`` more calls have come"; docs/contracts.md, pool: "fed a
drawn schedule ... (some longer than a slot, so slots grow): with each step's reader retired
before its slot is reused (``max_concurrency`` steps later ...), every reader reads its own
step's rows".

Smallest input: ``p = UvaBufferPool(1, torch.int32, 2); a = p.copy_to_uva([1, 2]); p.copy_to_uva([3]); a``.
Reference: ``a == [1, 2]``. Bug: ``a == [3, 2]`` (the second call rewrote the grown slot).
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
    n = shape[0]
    nxt = (self._curr + 1) % self.max_concurrency
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        # a grown slot is fresh: fill it and hand out its view straight away
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        self._uva_bufs[nxt] = grown
        (grown.cpu if isinstance(x, torch.Tensor) else grown.np)[:n] = x
        return grown.uva(n)  # BUG (r52 b01): returns before `self._curr = nxt`: the next call takes this slot again
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b01")
    return make_target(
        "b01_pool_growth_cursor_kept",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01", methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}),
    )
