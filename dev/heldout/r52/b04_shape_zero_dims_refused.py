"""b04 (CPU): sizes with a zero dimension are refused ("a buffer of no elements is a caller bug").

Where: ``h2d_impl/buffer_utils.py::_shape`` (every constructor of the six classes).

Change (one comparison)::

    if not shape or any(d < 0 for d in shape):     # reference
    if not shape or any(d <= 0 for d in shape):    # bug: "sizes must be positive"

Every size with no zero dimension is unchanged. A pool whose slots start empty
(``UvaBufferPool(0, ...)``: vLLM's ``FusedStagedWriter(device, 0)`` builds such pools, and they
grow at the first step), a ``StagedWriteTensor`` with zero-width rows (``(rows, 0)``) or no rows,
a ``UvaBackedTensor`` of no requests: all now raise ``ValueError`` naming ``size`` at
construction.

Promise broken: h2d_impl/buffer_utils.py ``_shape`` docstring: "``size`` as a shape of
non-negative ints, at least one dimension"; docs/reference.md, Model Runner V2: "an empty pool
slot (``FusedStagedWriter(device, 0)``) works as with vLLM's op"; docs/contracts.md,
staged-write: edges with "zero-width rows ... (into a zero-width row only an empty write fits)".

Smallest input: ``UvaBufferPool(0, torch.int32).copy_to_uva([1, 2])``.
Reference: ``tensor([1, 2], dtype=torch.int32)`` (the empty slot grows to 2 rows).
Bug: ``ValueError: size must have at least one dimension and no zero or negative one, got 0``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _shape(size: int | Sequence[int]) -> tuple[int, ...]:
    dims: Sequence[Any] = (size,) if not isinstance(size, (tuple, list, torch.Size)) else size
    try:
        shape = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(f"size must be an int or a sequence of ints, got {size!r}") from None
    if not shape or any(d <= 0 for d in shape):  # BUG (r52 b04): `d < 0`: zero dimensions refused
        raise ValueError(f"size must have at least one dimension and no zero or negative one, got {size!r}")
    return shape


def target() -> Target:
    f = fork("b04")
    return make_target(
        "b04_shape_zero_dims_refused",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04", names={"_shape": _shape}),
    )
