"""b12 - the row-count check takes a one-element tensor for a scalar (``numel() != 1`` for ``dim() != 0``).

Where: ``buffer.row_count`` (the ``n`` of ``CpuGpuBuffer.copy_to_gpu(n)`` / ``copy_to_cpu(n)`` and
of Model Runner V2's ``UvaBuffer.uva(n)``, ``NonUvaBuffer.uva(n)``,
``UvaBackedTensor.copy_to_uva(n)``: all wired to the changed function here).

Change (old -> new)::

    isinstance(n, torch.Tensor)
    and (n.dim() != 0 or n.dtype is torch.bool or n.is_floating_point() or n.is_complex())
    ->
    isinstance(n, torch.Tensor)
    and (n.numel() != 1 or n.dtype is torch.bool or n.is_floating_point() or n.is_complex())  # BUG

Why an engineer writes it: engines often hold counts as one-element slices
(``num_tokens[i:i + 1]``, ``query_start_loc[-1:]``) and a caller passed one; "a one-element
integer tensor is a scalar" looks like a harmless generalisation, and ``operator.index`` accepts
``torch.tensor([3])`` (it returns 3), so everything downstream works.

Promise broken: docs/contracts.md "buffer" ("a non-integer ``n`` (a bool, a float, a string,
``torch.tensor([1])``) ``TypeError``, naming ``n``, copying nothing") and docs/reference.md
"What it promises" (``CpuGpuBuffer``: "a bool, a float or ``torch.tensor([3])``, ``TypeError``";
the ``vllm`` row of "Where it differs": vLLM slices ``torch.tensor([3])`` to 3 rows).

Smallest input (CPU)::

    b = CpuGpuBuffer(2, dtype=torch.int32, device="cpu")
    b.copy_to_gpu(torch.tensor([1]))

Reference: ``TypeError: n must be an int or None, got tensor([1])``.
Bug: copies one row and returns ``b.gpu[:1]``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer
from plumbing import bu_fork, fork, make_target, rebind


def row_count(n: Any, capacity: int, of: str = "") -> int:
    """``n`` as a count of rows in ``[0, capacity]`` (see the reference)."""
    if isinstance(n, (bool, np.bool_)) or (
        isinstance(n, torch.Tensor)
        and (n.numel() != 1 or n.dtype is torch.bool or n.is_floating_point() or n.is_complex())  # BUG: was n.dim() != 0
    ):
        raise TypeError(f"n must be an int or None, got {n!r}")
    try:
        rows = operator.index(n)
    except TypeError:
        raise TypeError(f"n must be an int or None, got {n!r}") from None
    if not 0 <= rows <= capacity:
        raise IndexError(f"n={rows} is outside [0, {capacity}]" + (f" ({of})" if of else ""))
    return rows


def target() -> Target:
    f = fork("b12", buffer={"row_count": row_count})
    rc = f.buffer.row_count
    # CpuGpuBuffer is a class (not copied by fork): its reference _rows, unchanged, rebound to the buggy row_count
    buf = type(
        "CpuGpuBuffer",
        (CpuGpuBuffer,),
        {"__module__": __name__, "_rows": rebind(CpuGpuBuffer._rows, _buffer, row_count=rc)},
    )
    return make_target(
        "b12_row_count_numel_not_dim",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=buf,
        buffer_utils=bu_fork("b12", names={"row_count": row_count}),
    )
