"""b03 (CPU): ``CpuGpuBuffer`` refuses ``n == capacity`` (an exclusive upper bound).

The change: in ``CpuGpuBuffer._rows``, ``if not 0 <= rows <= self.capacity`` became
``if not 0 <= rows < self.capacity``.

Why an engineer writes it: the bounds check was rewritten as an index check ("a row
index must be below the row count"), the habit of every ``IndexError`` in Python;
``n`` is a row *count*, whose valid range includes the capacity.

What breaks: ``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` with ``n`` in ``[0, capacity]`` copy rows
``[0, n)`` (docs/reference.md, buffer contract): a full buffer, ``copy_to_gpu(capacity)``,
raises ``IndexError``; a capacity-0 buffer refuses even ``n=0``.
"""

from __future__ import annotations

import operator

import numpy as np
import torch

from h2d_contracts.h2d_impl import buffer as _buffer

from ._common import make_target, rebind


def _rows(self, n):
    if n is None:
        return None
    if isinstance(n, (bool, np.bool_)) or (
        isinstance(n, torch.Tensor)
        and (n.dim() != 0 or n.dtype is torch.bool or n.is_floating_point() or n.is_complex())
    ):
        raise TypeError(f"n must be an int or None, got {n!r}")
    try:
        rows = operator.index(n)
    except TypeError:
        raise TypeError(f"n must be an int or None, got {n!r}") from None
    if not 0 <= rows < self.capacity:  # BUG: was <= (n is a row count, not a row index)
        raise IndexError(f"n={rows} is outside [0, {self.capacity}] (the buffer's row capacity)")
    return rows


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    _rows = rebind(_rows, _buffer)


def target():
    return make_target("b03-buffer-rows-exclusive", buffer_cls=CpuGpuBuffer)
