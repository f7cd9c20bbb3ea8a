"""UvaBufferPool.__init__ builds its slots with ``[buf] * max_concurrency``: one buffer, N references.

What changed: the list comprehension creating one buffer per slot became a list
repetition, ``[self._buffer_cls(self._shape, self.dtype)] * max_concurrency``.

Why an engineer would write it: it reads as the same "max_concurrency slots of this
shape", is shorter, and every single-call test passes: the round robin still walks the
indices; only the objects behind them are all the same.

Promise broken (contract pool): with at most ``max_concurrency`` steps in flight every
reader sees its own step's data (a reader is valid until ``max_concurrency`` more calls).
Here the next call rewrites the very slot the previous reader holds.

Smallest input: ``p = UvaBufferPool(1, torch.int32, 2); a = p.copy_to_uva([1]);
p.copy_to_uva([2]); a``: reference ``[1]``, bug ``[2]``.
(On the CPU the slots are NonUvaBuffers and the reader is the twin's slice, which the
second call overwrites; until a slot grows, all slots stay one object.)
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _init(self, size, dtype, max_concurrency=None):  # type: ignore[no-untyped-def]
    if max_concurrency is None:
        max_concurrency = DEFAULT_MAX_CONCURRENCY  # noqa: F821
    if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int):
        raise TypeError(f"max_concurrency must be an int, got {type(max_concurrency).__name__}")
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
    self.size = size
    self.dtype = _dtype(dtype)  # noqa: F821
    self.max_concurrency = max_concurrency
    self._shape = _shape(size)  # noqa: F821
    self._buffer_cls = UvaBuffer if uva_available() else NonUvaBuffer  # noqa: F821
    self._uva_bufs = [self._buffer_cls(self._shape, self.dtype)] * max_concurrency  # BUG: one buffer shared by every slot
    self._curr = 0
    self._retired = []


class UvaBufferPool(REF.UvaBufferPool):
    __init__ = rebind(_init)


def target() -> Target:
    return make_target("pool_slots_one_object", UvaBufferPool=UvaBufferPool)
