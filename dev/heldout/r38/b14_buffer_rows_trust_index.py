"""b14 (CPU-visible, buffer.py ``row_count``): the tensor pre-check of ``n`` was dropped, trusting ``operator.index``.

What changed: in ``row_count`` the clause refusing tensors that are not 0-d integers
(``isinstance(n, torch.Tensor) and (n.dim() != 0 or n.dtype is torch.bool or ...)``) was
removed; only Python/numpy bools are refused before ``operator.index(n)``.

Why an engineer would write it: "``operator.index`` already refuses what is not an integer
(floats, strings, float tensors), so the tensor clause is redundant". It is not: torch's
``Tensor.__index__`` accepts *any single-element* integer tensor, of any number of
dimensions (``torch.tensor([3])``, ``torch.tensor([[3]])``), and bool tensors
(``torch.tensor(True)`` -> 1). That is exactly vLLM's slicing behaviour the reference
documents as refused.

Promise broken: docs/reference.md "CpuGpuBuffer ... ``n`` outside ``[0, capacity]`` raises
``IndexError``; a bool, a float or ``torch.tensor([3])``, ``TypeError``" (and the vLLM
table: "``torch.tensor([3])`` | 3 rows | ``TypeError``"); docstring of ``row_count``
("a tensor other than a 0-d integer one"); contracts.md buffer ("``torch.tensor([1])``
``TypeError``, naming ``n``, copying nothing").

Smallest input: ``b = CpuGpuBuffer(4, dtype=torch.int32, device="cpu"); b.cpu[:] = 7;
b.copy_to_gpu(torch.tensor([3]))``.
Reference: ``TypeError: n must be an int or None, got tensor([3])``, ``b.gpu`` zeros.
Bug: copies 3 rows, returns ``tensor([7, 7, 7])``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import CpuGpuBuffer, buffer as _buffer_mod

from ._common import buffer_utils_ns, fork, make_target, rebind


def row_count(n: Any, capacity: int, of: str = "") -> int:
    """``n`` as a count of rows in ``[0, capacity]``: the ``n`` of ``copy_to_gpu(n)``, ``uva(n)`` and the like."""
    # BUG: the tensor clause `isinstance(n, torch.Tensor) and (n.dim() != 0 or n.dtype is torch.bool or
    # n.is_floating_point() or n.is_complex())` was removed: operator.index takes any 1-element integer/bool tensor
    if isinstance(n, (bool, np.bool_)):
        raise TypeError(f"n must be an int or None, got {n!r}")
    try:
        rows = operator.index(n)
    except TypeError:
        raise TypeError(f"n must be an int or None, got {n!r}") from None
    if not 0 <= rows <= capacity:
        raise IndexError(f"n={rows} is outside [0, {capacity}]" + (f" ({of})" if of else ""))
    return rows


_row_count = rebind(row_count, _buffer_mod)


class BuggyCpuGpuBuffer(CpuGpuBuffer):
    # the reference's _rows, resolving `row_count` to the changed function
    _rows = rebind(CpuGpuBuffer._rows, _buffer_mod, row_count=_row_count)


def target() -> Target:
    f = fork("b14")
    return make_target(
        "b14_buffer_rows_trust_index",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=BuggyCpuGpuBuffer,
        buffer_utils=buffer_utils_ns(),
    )
