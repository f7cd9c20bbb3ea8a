"""b09 (CPU): the "scalar tensor" test of ``row_count`` by element count (``numel() != 1``) instead of rank: ``torch.tensor([3])`` is taken as ``n=3``.

Where: ``h2d_impl/buffer.py::row_count`` (the ``n`` of ``CpuGpuBuffer.copy_to_gpu/copy_to_cpu``;
Model Runner V2's ``uva(n)`` and ``UvaBackedTensor.copy_to_uva(n)`` use it too).

Change (one call)::

    and (n.dim() != 0 or n.dtype is torch.bool or ...)     # reference: only a 0-d tensor is a count
    and (n.numel() != 1 or n.dtype is torch.bool or ...)   # bug: "one element is a scalar"

``operator.index`` accepts any one-element integer tensor, so ``torch.tensor([3])`` (or a
``(1, 1)`` tensor) now passes as ``n=3``: exactly vLLM's accident (slicing with a 1-element
tensor copies 3 rows), which the reference lists among the cases it refuses. Engines hand a
one-element *batch* tensor where a count was meant; the reference names ``n`` in a
``TypeError``, the bug copies.

Promise broken: docs/reference.md, CpuGpuBuffer: "`n` outside `[0, capacity]` raises
`IndexError`; a bool, a float or `torch.tensor([3])`, `TypeError`" and "Where it differs from
vLLM": "`copy_to_gpu(n)`, `n` > capacity, `-1`, `torch.tensor([3])` | sliced: clamped, last
row dropped, 3 rows | `IndexError` / `TypeError`"; docs/contracts.md, buffer: "a non-integer
`n` (a bool, a float, a string, `torch.tensor([1])`) `TypeError`, naming `n`, copying
nothing"; h2d_impl/buffer.py ``row_count`` docstring: "TypeError: ``n`` is not an int (...,
a tensor other than a 0-d integer one)".

Smallest input: ``b = CpuGpuBuffer(4, dtype=torch.int32, device='cpu'); b.np[:] = 7;
b.copy_to_gpu(torch.tensor([3]))``.
Reference: ``TypeError: n must be an int or None, got tensor([3])`` (``.gpu`` zeros). Bug:
``tensor([7, 7, 7], dtype=torch.int32)`` (three rows copied).
"""

from __future__ import annotations

import operator
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
        and (n.numel() != 1 or n.dtype is torch.bool or n.is_floating_point() or n.is_complex())  # BUG (r50 b09)
    ):
        raise TypeError(f"n must be an int or None, got {n!r}")
    try:
        rows = operator.index(n)
    except TypeError:
        raise TypeError(f"n must be an int or None, got {n!r}") from None
    if not 0 <= rows <= capacity:
        raise IndexError(f"n={rows} is outside [0, {capacity}]" + (f" ({of})" if of else ""))
    return rows


_row_count = rebind(row_count, buffer)


def _rows(self: buffer.CpuGpuBuffer, n: Any) -> int | None:
    return None if n is None else row_count(n, self.capacity, "the buffer's row capacity")


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    _rows = rebind(_rows, buffer, row_count=_row_count)


def target() -> Target:
    f = fork("b09")
    return make_target(
        "b09_row_count_numel_scalar",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b09", names={"row_count": row_count}),
    )
