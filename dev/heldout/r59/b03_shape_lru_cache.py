"""b03 (CPU): the shape normaliser ``_shape`` is memoised with ``functools.lru_cache``.

Where: ``h2d_impl/buffer_utils.py::_shape`` (every constructor of the six classes: ``UvaBuffer``, ``NonUvaBuffer``,
``UvaBufferPool`` and its slots, ``UvaBackedTensor``, ``StagedWriteTensor``).

Change: a decorator on the helper ("``_shape`` runs for every slot of every pool and at every growth: cache it; a
shape is a pure function of ``size``")::

    def _shape(size): ...                                              # reference

    @functools.lru_cache(maxsize=None)                                  # bug
    def _shape(size): ...

Two properties of ``lru_cache`` break the helper. Its key must be hashable: a size given as a list
(``StagedWriteTensor([max_num_reqs, max_model_len], ...)``, ``UvaBufferPool([n, 3], ...)``) raises
``TypeError: unhashable type: 'list'`` before the function runs, a message that names no argument. And its key
is compared by ``==``: after ``_shape((2, 3))`` a tuple ``(2.0, 3)`` (equal, same hash) is a cache hit and comes
back as ``(2, 3)``, so a float size that ``operator.index`` refuses builds a buffer once an equal int size was seen
(a single bare float is not hit: ``lru_cache`` keys a lone int argument by itself).

Promise broken: h2d_impl/buffer_utils.py ``_shape``: "``size`` as a shape of non-negative ints ...; TypeError/
ValueError naming ``size``"; docs/contracts.md, staged-write: "Shapes come as tuples or lists".

Smallest input: ``UvaBufferPool([2, 3], torch.int32).copy_to_uva([[1, 2, 3]])``.
Reference: ``tensor([[1, 2, 3]], dtype=torch.int32)``. Bug: ``TypeError: unhashable type: 'list'`` (and
``UvaBufferPool((2, 3), torch.int32); UvaBufferPool((2.0, 3), torch.int32)``: ``TypeError`` naming ``size``
against a pool built).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _shape(size: int | Sequence[int]) -> tuple[int, ...]:
    """``size`` as a shape of non-negative ints, at least one dimension; TypeError/ValueError naming ``size``."""
    dims: Sequence[Any] = (size,) if not isinstance(size, (tuple, list, torch.Size)) else size
    try:
        shape = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(f"size must be an int or a sequence of ints, got {size!r}") from None
    if not shape or any(d < 0 for d in shape):
        raise ValueError(f"size must have at least one dimension and no negative one, got {size!r}")
    return shape


def target() -> Target:
    f = fork("b03")
    cached = functools.lru_cache(maxsize=None)(_shape)  # BUG (r59 b03): a cache keyed by hash and ==
    return make_target(
        "b03_shape_lru_cache",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03", names={"_shape": cached}),
    )
