"""UvaBufferPool.__init__ takes ``max_concurrency or DEFAULT``: 0 silently becomes the default depth.

What changed: ``if max_concurrency is None: max_concurrency = DEFAULT_MAX_CONCURRENCY``
became ``max_concurrency = max_concurrency or DEFAULT_MAX_CONCURRENCY``.

Why an engineer would write it: the ``x or default`` idiom is everywhere in engine
configuration code (``batch_queue_size or 2``), and a depth of 0 "obviously means not
configured".

Promise broken (UvaBufferPool docstring, contract pool's bad arguments):
``max_concurrency`` is an int >= 1; a bad one raises ``ValueError`` naming
``max_concurrency``. With the bug 0 is accepted and a 2-deep pool is built.

Smallest input: ``UvaBufferPool(1, torch.int32, max_concurrency=0)``: reference
ValueError ("max_concurrency must be >= 1, got 0"); bug: a pool with
``max_concurrency == 2``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _init(self, size, dtype, max_concurrency=None):  # type: ignore[no-untyped-def]
    max_concurrency = max_concurrency or DEFAULT_MAX_CONCURRENCY  # BUG: 0 (falsy) becomes the default  # noqa: F821
    if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int):
        raise TypeError(f"max_concurrency must be an int, got {type(max_concurrency).__name__}")
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
    self.size = size
    self.dtype = _dtype(dtype)  # noqa: F821
    self.max_concurrency = max_concurrency
    self._shape = _shape(size)  # noqa: F821
    self._buffer_cls = UvaBuffer if uva_available() else NonUvaBuffer  # noqa: F821
    self._uva_bufs = [self._buffer_cls(self._shape, self.dtype) for _ in range(max_concurrency)]
    self._curr = 0
    self._retired = []


class UvaBufferPool(REF.UvaBufferPool):
    __init__ = rebind(_init)


def target() -> Target:
    return make_target("pool_zero_depth_defaulted", UvaBufferPool=UvaBufferPool)
