"""b07 (CPU): ``UvaBufferPool`` refuses a depth of one slot.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.__init__`` (the depth check; ``UvaBackedTensor``
builds its pool there too).

Change: the lower bound tightened to vLLM's floor ("``set_default_max_concurrency`` clamps to
``max(2, n)``: with one slot the next step overwrites the slot a queued reader still reads")::

    if max_concurrency < 1:                                                      # reference
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")

    if max_concurrency < 2:                                                      # bug
        raise ValueError(f"max_concurrency must be >= 2, got {max_concurrency}")

Depths of two and more, the default included, behave as the reference. A pool (or a backed
tensor) of depth 1, a valid configuration for a synchronous runner that retires every reader
before the next step (an engine without async scheduling, a batch queue of one), is refused at
construction.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool``: "max_concurrency: the number of slots
(default :data:`DEFAULT_MAX_CONCURRENCY`); an int >= 1"; docs/contracts.md, pool: "A
``UvaBufferPool(size, dtype, max_concurrency)`` (depth 1-9: ...)" and "``max_concurrency`` 0, -1,
1.5 or ``True`` raises" (1 is not among them).

Smallest input: ``UvaBufferPool(2, torch.int32, max_concurrency=1).copy_to_uva([1, 2])``.
Reference: ``tensor([1, 2], dtype=torch.int32)``. Bug: ``ValueError: max_concurrency must be >= 2, got 1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals)


def __init__(self: Any, size: int | Sequence[int], dtype: torch.dtype, max_concurrency: int | None = None) -> None:
    if max_concurrency is None:
        max_concurrency = DEFAULT_MAX_CONCURRENCY
    if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int):
        raise TypeError(f"max_concurrency must be an int, got {type(max_concurrency).__name__}")
    if max_concurrency < 2:  # BUG (r54 b07): vLLM's floor of two slots
        raise ValueError(f"max_concurrency must be >= 2, got {max_concurrency}")
    self.size = size
    self.dtype = _dtype(dtype)
    self.max_concurrency = max_concurrency
    self._shape = _shape(size)
    self._buffer_cls = UvaBuffer if uva_available() else NonUvaBuffer
    self._uva_bufs = [self._buffer_cls(self._shape, self.dtype) for _ in range(max_concurrency)]
    self._curr = 0
    self._retired = []


def target() -> Target:
    f = fork("b07")
    return make_target(
        "b07_pool_depth_one_refused",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b07", methods={"UvaBufferPool": {"__init__": __init__}}),
    )
