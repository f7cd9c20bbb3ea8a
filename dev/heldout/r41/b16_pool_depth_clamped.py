"""b16 (CPU): ``UvaBufferPool`` silently clamps ``max_concurrency`` to 4 slots.

Where: ``UvaBufferPool.__init__``.

Change: after the validation, one line: ``max_concurrency = min(max_concurrency, _MAX_SLOTS)``
with a new module constant ``_MAX_SLOTS = 4`` ("bound the pinned memory a pool can hold").

Why plausible: pinned memory is scarce, each slot is a pinned block that only grows, and
vLLM's batch queue is 1 or 2 deep; an engineer caps the ring "generously" without raising,
so configurations asking for more keep working. Depths up to 4 are untouched.

Promise broken: ``UvaBufferPool``: "``max_concurrency``: the number of slots (default
``DEFAULT_MAX_CONCURRENCY``); an int >= 1"; "A reader of that view sees its data until
``max_concurrency`` more calls have come: with at most ``max_concurrency`` steps in flight every
reader sees its own step's data"; docs/reference.md: "round-robin slots (``max_concurrency``,
default 2) ... readers valid until ``max_concurrency`` later steps reuse their slot".

Smallest input: ``p = UvaBufferPool(1, torch.int32, 5); a = p.copy_to_uva([1]);``
then ``p.copy_to_uva([k])`` for k = 2..5 (four calls); ``a``.
Reference: ``a`` = [1] (5 slots: its slot is reused by the fifth call only).
Bug: ``a`` = [5] (and ``p.max_concurrency`` reads 4).
"""

from __future__ import annotations

from typing import Any

import torch

from ._bu import bu_fork, bu_target

TAG, SHORT = "b16", "b16_pool_depth_clamped"

_MAX_SLOTS = 4


def __init__(self, size: Any, dtype: torch.dtype, max_concurrency: int | None = None) -> None:
    if max_concurrency is None:
        max_concurrency = DEFAULT_MAX_CONCURRENCY  # noqa: F821
    if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int):
        raise TypeError(f"max_concurrency must be an int, got {type(max_concurrency).__name__}")
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
    max_concurrency = min(max_concurrency, _MAX_SLOTS)  # BUG: silent cap
    self.size = size
    self.dtype = _dtype(dtype)  # noqa: F821
    self.max_concurrency = max_concurrency
    self._shape = _shape(size)  # noqa: F821
    self._buffer_cls = UvaBuffer if uva_available() else NonUvaBuffer  # noqa: F821
    self._uva_bufs = [self._buffer_cls(self._shape, self.dtype) for _ in range(max_concurrency)]
    self._curr = 0
    self._retired = []


def classes():
    return bu_fork(TAG, names={"_MAX_SLOTS": _MAX_SLOTS}, methods={"UvaBufferPool": {"__init__": __init__}})


def target():
    return bu_target(TAG, SHORT, classes())
