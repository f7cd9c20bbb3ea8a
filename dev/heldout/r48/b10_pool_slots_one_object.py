"""b10 (CPU): the pool's slots built by list repetition: every slot is one and the same buffer object.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.__init__``.

Change (one statement)::

    self._uva_bufs = [self._buffer_cls(self._shape, self.dtype) for _ in range(max_concurrency)]  # reference
    self._uva_bufs = [self._buffer_cls(self._shape, self.dtype)] * max_concurrency                # bug: "simpler"

``[obj] * n`` repeats the reference, so every ``copy_to_uva`` writes the same buffer and a
reader of an earlier step (not yet ``max_concurrency`` calls old) sees the next step's data.
A slot that grows is replaced in its own list entry only, so the aliasing lasts until every
slot has grown. ``UvaBackedTensor``'s pool is built here too.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool`` docstring: "A reader of that view
sees its data until ``max_concurrency`` more calls have come: with at most
``max_concurrency`` steps in flight every reader sees its own step's data"; docs/contracts.md,
pool: "with each step's reader retired before its slot is reused (`max_concurrency` steps
later ...), every reader reads its own step's rows, shape and values"; docs/reference.md:
"What the reference keeps of vLLM's design: round-robin slots (`max_concurrency`, default 2)".

Smallest input: ``p = UvaBufferPool(2, torch.int32, 2); a = p.copy_to_uva([1, 2]); p.copy_to_uva([3, 4]); a``.
Reference: ``a`` is ``tensor([1, 2])``. Bug: ``a`` is ``tensor([3, 4])``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def __init__(self, size: int | Sequence[int], dtype: torch.dtype, max_concurrency: int | None = None) -> None:
    if max_concurrency is None:
        max_concurrency = DEFAULT_MAX_CONCURRENCY
    if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int):
        raise TypeError(f"max_concurrency must be an int, got {type(max_concurrency).__name__}")
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
    self.size = size
    self.dtype = _dtype(dtype)
    self.max_concurrency = max_concurrency
    self._shape = _shape(size)
    self._buffer_cls: type[UvaBuffer] | type[NonUvaBuffer] = UvaBuffer if uva_available() else NonUvaBuffer
    self._uva_bufs: list[UvaBuffer | NonUvaBuffer] = [
        self._buffer_cls(self._shape, self.dtype)
    ] * max_concurrency  # BUG (r48 b10): one buffer object in every slot
    self._curr = 0
    self._retired: list[tuple[UvaBuffer | NonUvaBuffer, Any]] = []


def target() -> Target:
    f = fork("b10")
    return make_target(
        "b10_pool_slots_one_object",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b10", methods={"UvaBufferPool": {"__init__": __init__}}),
    )
