"""b05 (CPU): ``UvaBufferPool.copy_to_gpu`` fills the slot the cursor is on (the previous step's) instead of taking the next one.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_gpu`` (``copy_to_uva``'s body factored into a
helper ``_fill(x, slot)``).

Change: a refactor with an optimisation ("``copy_to_gpu`` reads its slot right away, a clone or
``out``'s copy issued before it returns: it does not need a slot of the ring for later readers, so
it need not turn the cursor and shorten the other readers' lease")::

    uva = self.copy_to_uva(x)                                                    # reference
    return uva.clone() if out is None else out.copy_(uva, non_blocking=True)

    uva = self._fill(x, self._curr)                                              # bug
    return uva.clone() if out is None else out.copy_(uva, non_blocking=True)

``copy_to_uva`` is unchanged (``self._fill(x, nxt)``, then ``self._curr = nxt``). The reasoning about
the copy's own slot is right; the slot it picks is not free: ``self._curr`` is the slot of the latest
``copy_to_uva``, whose reader holds its view and must see its data until ``max_concurrency`` more
calls. ``copy_to_gpu``'s own result is right; the previous step's reader now reads this step's rows
(on a host without UVA the slot's twin is rewritten; with UVA the pinned rows themselves).

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool``: "A reader of that view sees its data until
``max_concurrency`` more calls have come"; ``UvaBufferPool.copy_to_gpu``: "``copy_to_uva(x)`` then a device
copy"; docs/contracts.md, pool: "Each step is sent by a drawn method: ``copy_to_uva(x)``,
``copy_to_gpu(x)`` or ``copy_to_gpu(x, out=out)`` ... every reader reads its own step's rows, shape and values".

Smallest input: ``p = UvaBufferPool(2, torch.int32); a = p.copy_to_uva([1, 1]); p.copy_to_gpu([2, 2]); a``.
Reference: ``a == [1, 1]`` (and ``copy_to_gpu`` returns ``[2, 2]``). Bug: ``a == [2, 2]`` (``copy_to_gpu`` returns ``[2, 2]``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _fill(self: Any, x: torch.Tensor | np.ndarray | list[Any], slot: int) -> torch.Tensor:
    """``copy_to_uva``'s body for a given slot: check ``x``, grow the slot if needed, write ``x``, return the view."""
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
    buf = self._uva_bufs[slot]
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[slot] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    return buf.uva(n)


def copy_to_uva(self: Any, x: torch.Tensor | np.ndarray | list[Any]) -> torch.Tensor:
    """Write ``x`` into the next slot and return its view of ``len(x)`` rows."""
    nxt = (self._curr + 1) % self.max_concurrency
    view = self._fill(x, nxt)
    self._curr = nxt
    return view


def copy_to_gpu(self: Any, x: torch.Tensor | np.ndarray, out: torch.Tensor | None = None) -> torch.Tensor:
    """``copy_to_uva(x)`` then a device copy: a fresh clone, or ``out.copy_(view, non_blocking=True)``."""
    uva = self._fill(x, self._curr)  # BUG (r56 b05): "read at once, no slot of its own": the latest reader's slot
    return uva.clone() if out is None else out.copy_(uva, non_blocking=True)


def target() -> Target:
    f = fork("b05")
    return make_target(
        "b05_pool_gpu_copy_on_current_slot",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork(
            "b05",
            methods={"UvaBufferPool": {"_fill": _fill, "copy_to_uva": copy_to_uva, "copy_to_gpu": copy_to_gpu}},
        ),
    )
