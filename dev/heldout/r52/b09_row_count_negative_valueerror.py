"""b09 (CPU): a negative row count raises ``ValueError`` ("a bad value"), not ``IndexError``.

Where: ``h2d_impl/buffer.py::row_count``: the ``n`` of ``CpuGpuBuffer.copy_to_gpu(n)`` /
``copy_to_cpu(n)`` and of Model Runner V2's ``UvaBuffer.uva(n)``, ``NonUvaBuffer.uva(n)`` and
``UvaBackedTensor.copy_to_uva(n)`` (all wired to the changed function here).

Change (one check added before the range test)::

    if not 0 <= rows <= capacity:                                           # reference
        raise IndexError(f"n={rows} is outside [0, {capacity}]" ...)

    if rows < 0:                                                            # bug
        raise ValueError(f"n={rows} is negative: a row count cannot be")   # "a negative count is a bad value"
    if not 0 <= rows <= capacity:
        raise IndexError(...)

Every valid ``n`` and every ``n`` past the capacity behave as the reference; a negative ``n`` is
still refused with nothing copied, and the message still names ``n``, but as ``ValueError``: a
caller catching ``IndexError`` (the documented type, and what a slice bound check raises) lets it
through.

Promise broken: h2d_impl/buffer.py ``row_count`` docstring: "IndexError: ``n`` is outside ``[0,
capacity]``, naming ``n``"; ``CpuGpuBuffer.copy_to_gpu``: "IndexError: ``n`` outside ``[0,
capacity]``; nothing is copied"; h2d_impl/buffer_utils.py ``UvaBackedTensor.copy_to_uva``:
"IndexError/TypeError naming ``n``"; docs/contracts.md, uva: "``n`` past the rows, negative, a float
or a bool raises ``IndexError`` or ``TypeError`` naming ``n``".

Smallest input: ``UvaBackedTensor(4, torch.int32).copy_to_uva(-1)``.
Reference: ``IndexError: n=-1 is outside [0, 4]``. Bug: ``ValueError: n=-1 is negative: a row count cannot be``.
(Also ``CpuGpuBuffer(2, dtype=torch.int32, device='cpu').copy_to_gpu(-1)``.)
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer


def row_count(n: Any, capacity: int, of: str = "") -> int:
    if isinstance(n, (bool, np.bool_)) or (
        isinstance(n, torch.Tensor)
        and (n.dim() != 0 or n.dtype is torch.bool or n.is_floating_point() or n.is_complex())
    ):
        raise TypeError(f"n must be an int or None, got {n!r}")
    try:
        rows = operator.index(n)
    except TypeError:
        raise TypeError(f"n must be an int or None, got {n!r}") from None
    if rows < 0:
        raise ValueError(f"n={rows} is negative: a row count cannot be")  # BUG (r52 b09): ValueError, not IndexError
    if not 0 <= rows <= capacity:
        raise IndexError(f"n={rows} is outside [0, {capacity}]" + (f" ({of})" if of else ""))
    return rows


def target() -> Target:
    f = fork("b09", buffer={"row_count": row_count})
    rc = f.buffer.row_count
    # CpuGpuBuffer is a class (not copied by fork): its reference _rows, unchanged, rebound to the buggy row_count
    buf = type(
        "CpuGpuBuffer",
        (CpuGpuBuffer,),
        {"__module__": __name__, "_rows": rebind(CpuGpuBuffer._rows, _buffer, row_count=rc)},
    )
    return make_target(
        "b09_row_count_negative_valueerror",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=buf,
        buffer_utils=bu_fork("b09", names={"row_count": row_count}),
    )
