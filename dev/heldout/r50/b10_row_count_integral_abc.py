"""b10 (CPU): ``row_count`` tests ``isinstance(n, numbers.Integral)`` instead of asking ``operator.index``: a 0-d integer tensor, a valid count, is refused.

Where: ``h2d_impl/buffer.py::row_count`` (the ``n`` of ``CpuGpuBuffer.copy_to_gpu/copy_to_cpu``;
Model Runner V2's ``uva(n)`` and ``UvaBackedTensor.copy_to_uva(n)`` use it too).

Change (the conversion; one statement)::

    try:                                     # reference: whatever implements __index__
        rows = operator.index(n)
    except TypeError:
        raise TypeError(f"n must be an int or None, got {n!r}") from None
    if not isinstance(n, numbers.Integral):  # bug: "an ABC test is clearer than try/except"
        raise TypeError(f"n must be an int or None, got {n!r}")
    rows = int(n)

Python ints and numpy integers are ``numbers.Integral`` (numpy registers them), so most
callers see no change; ``torch.Tensor`` is not, so ``copy_to_gpu(torch.tensor(2))`` (a token
count read off a 0-d tensor, as engines keep ``num_tokens``) is refused with ``TypeError``.
0-d ``np.ndarray`` counts are refused the same way.

Promise broken: h2d_impl/buffer.py ``row_count`` docstring: "TypeError: ``n`` is not an int (a
bool, a float, a string, a tensor other than a 0-d integer one)" (a 0-d integer tensor is a
count); ``CpuGpuBuffer.copy_to_gpu`` docstring: "n: number of rows, ``0 <= n <= capacity``";
docs/contracts.md, buffer: "`copy_to_gpu(n)` / `copy_to_cpu(n)` copy exactly rows `[0, n)`".

Smallest input: ``b = CpuGpuBuffer(4, dtype=torch.int32, device='cpu'); b.np[:] = 7;
b.copy_to_gpu(torch.tensor(2))``.
Reference: ``tensor([7, 7], dtype=torch.int32)``. Bug: ``TypeError: n must be an int or None, got tensor(2)``.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer
from plumbing import bu_fork, fork, make_target, rebind


def row_count(n: Any, capacity: int, of: str = "") -> int:
    """``n`` as a count of rows in ``[0, capacity]`` (the reference's docstring: h2d_impl/buffer.py)."""
    if isinstance(n, (bool, np.bool_)) or (
        isinstance(n, torch.Tensor)
        and (n.dim() != 0 or n.dtype is torch.bool or n.is_floating_point() or n.is_complex())
    ):
        raise TypeError(f"n must be an int or None, got {n!r}")
    if not isinstance(n, numbers.Integral):  # BUG (r50 b10): an ABC test; a 0-d tensor is not Integral
        raise TypeError(f"n must be an int or None, got {n!r}")
    rows = int(n)
    if not 0 <= rows <= capacity:
        raise IndexError(f"n={rows} is outside [0, {capacity}]" + (f" ({of})" if of else ""))
    return rows


_row_count = rebind(row_count, buffer, numbers=numbers)


def _rows(self: buffer.CpuGpuBuffer, n: Any) -> int | None:
    return None if n is None else row_count(n, self.capacity, "the buffer's row capacity")


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    _rows = rebind(_rows, buffer, row_count=_row_count)


def target() -> Target:
    f = fork("b10")
    return make_target(
        "b10_row_count_integral_abc",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        # bu_fork rebinds plain functions to buffer_utils' globals (no `numbers` there): hand it the bound copy as is
        buffer_utils=bu_fork("b10", names={"row_count": functools.partial(_row_count)}),
    )
