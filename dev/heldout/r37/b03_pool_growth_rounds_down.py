"""UvaBufferPool.copy_to_uva grows a slot to a power of two rounded down, not up.

What changed: the growth capacity ``1 << (n - 1).bit_length()`` was "simplified" to
``1 << n.bit_length() - 1``. Python binds ``-`` tighter than ``<<``, so this is
``1 << (n.bit_length() - 1)``: the largest power of two <= n, not the smallest >= n.

Why an engineer would write it: ``(n - 1).bit_length()`` and ``n.bit_length() - 1`` look
like the same expression moved around, and they agree whenever ``n`` is a power of two
(every growth in a quick test with 2, 4, 8 rows works).

Promise broken (contract pool; the pool's docstring): ``copy_to_uva(x)`` grows the slot
to the next power of two rows when ``len(x)`` exceeds it and returns its view of
``len(x)`` rows, growth included.

Smallest input: ``UvaBufferPool(1, torch.int32).copy_to_uva([1, 2, 3])``: reference
``[1, 2, 3]``; bug: the slot grows to 2 rows and ``dst[:3] = x`` raises ValueError
("could not broadcast input array from shape (3,) into shape (2,)").
"""

from __future__ import annotations

from typing import Any

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _copy_to_uva(self, x):  # type: ignore[no-untyped-def]
    if isinstance(x, torch.Tensor):  # noqa: F821
        if x.device.type != "cpu":
            raise TypeError(f"x must be on the host, got a tensor on {x.device}")
        shape = tuple(x.shape)
    elif isinstance(x, (np.ndarray, list)):  # noqa: F821
        shape = np.shape(x)  # noqa: F821
    else:
        raise TypeError(f"x must be a tensor, ndarray or list, got {type(x).__name__}")
    if len(shape) != len(self._shape) or tuple(shape[1:]) != self._shape[1:]:
        raise ValueError(f"x has shape {tuple(shape)}; a slot holds rows of shape {self._shape[1:]}")
    n = shape[0]
    nxt = (self._curr + 1) % self.max_concurrency
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        capacity = 1 << n.bit_length() - 1  # BUG: parses as 1 << (n.bit_length() - 1): rounds down
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np  # noqa: F821
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


class UvaBufferPool(REF.UvaBufferPool):
    copy_to_uva = rebind(_copy_to_uva, Any=Any)


def target() -> Target:
    return make_target("pool_growth_rounds_down", UvaBufferPool=UvaBufferPool)
