"""b08 (CPU): a pool built with an explicit depth makes that depth the default of every later pool.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.__init__`` (and so ``UvaBackedTensor``, whose
pool takes the default when it is given no depth).

Change: vLLM's ``set_default_max_concurrency`` folded into the constructor ("the engine sizes its
first pool from the batch queue size; pools made afterwards without a depth follow it")::

    if max_concurrency is None:                                                  # reference
        max_concurrency = DEFAULT_MAX_CONCURRENCY

    global DEFAULT_MAX_CONCURRENCY                                               # bug
    if max_concurrency is None:
        max_concurrency = DEFAULT_MAX_CONCURRENCY
    ...
    DEFAULT_MAX_CONCURRENCY = max_concurrency

A pool given ``max_concurrency`` is itself right. Every pool built after it without a depth takes
the last depth given anywhere in the process instead of :data:`DEFAULT_MAX_CONCURRENCY` (2): after
any depth-1 pool, a default pool (or a backed tensor) overwrites a reader's slot on the very next
call, and its readers read the next step's values. Which depth a default pool gets depends on
what was built before it.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool``: "max_concurrency: the number of slots
(default :data:`DEFAULT_MAX_CONCURRENCY`)" and ``DEFAULT_MAX_CONCURRENCY``: "Round-robin depth of
the pools when none is given"; docs/contracts.md, pool: "the default (two: a pool built without
``max_concurrency``)"; docs/reference.md: "round-robin slots (``max_concurrency``, default 2)".

Smallest input: ``UvaBufferPool(2, torch.int32, max_concurrency=1); p = UvaBufferPool(2, torch.int32); a = p.copy_to_uva([1, 1]); p.copy_to_uva([2, 2]); (a, p.max_concurrency)``.
Reference: ``([1, 1], 2)``. Bug: ``([2, 2], 1)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals)


def __init__(self: Any, size: int | Sequence[int], dtype: torch.dtype, max_concurrency: int | None = None) -> None:
    global DEFAULT_MAX_CONCURRENCY
    if max_concurrency is None:
        max_concurrency = DEFAULT_MAX_CONCURRENCY
    if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int):
        raise TypeError(f"max_concurrency must be an int, got {type(max_concurrency).__name__}")
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
    DEFAULT_MAX_CONCURRENCY = max_concurrency  # BUG (r54 b08): the last depth given becomes every later default
    self.size = size
    self.dtype = _dtype(dtype)
    self.max_concurrency = max_concurrency
    self._shape = _shape(size)
    self._buffer_cls = UvaBuffer if uva_available() else NonUvaBuffer
    self._uva_bufs = [self._buffer_cls(self._shape, self.dtype) for _ in range(max_concurrency)]
    self._curr = 0
    self._retired = []


def target() -> Target:
    f = fork("b08")
    return make_target(
        "b08_pool_depth_becomes_default",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b08", methods={"UvaBufferPool": {"__init__": __init__}}),
    )
