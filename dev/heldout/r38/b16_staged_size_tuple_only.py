"""b16 (CPU-visible, buffer_utils.py ``_shape``, used by ``StagedWriteTensor``): only a tuple is read as a shape.

What changed: ``dims = (size,) if not isinstance(size, (tuple, list, torch.Size)) else size``
became ``dims = size if isinstance(size, tuple) else (size,)``.

Why an engineer would write it: "the usual idiom; ``torch.Size`` is a tuple subclass, so it
still works". A list is now taken for a single dimension, and ``operator.index([2, 3])``
fails: ``StagedWriteTensor([rows, cols], ...)`` raises ``TypeError`` ("size must be an int or a
sequence of ints") although it *is* a sequence of ints. (Shown through
``StagedWriteTensor``; the helper is shared by every Model Runner V2 class.)

Promise broken: "size: the shape: rows first" / "the shape (an int or a sequence of ints)"
(docstrings of ``StagedWriteTensor``, ``UvaBuffer``; the helper's own message); docs/reference.md
"with the same constructors ... ``StagedWriteTensor(size, dtype, device, ...)``" as vLLM, whose
callers pass lists.

Smallest input: ``StagedWriteTensor([2, 3], torch.int32, "cpu").gpu.shape``.
Reference: ``torch.Size([2, 3])``. Bug: ``TypeError: size must be an int or a sequence of
ints, got [2, 3]``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer_utils as _bu

from ._common import buffer_utils_ns, fork, make_target, rebind


def _shape(size: int | Sequence[int]) -> tuple[int, ...]:
    """``size`` as a shape of non-negative ints, at least one dimension; TypeError/ValueError naming ``size``."""
    dims: Sequence[Any] = size if isinstance(size, tuple) else (size,)  # BUG: lists (and other sequences) taken as one dim
    try:
        shape = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(f"size must be an int or a sequence of ints, got {size!r}") from None
    if not shape or any(d < 0 for d in shape):
        raise ValueError(f"size must have at least one dimension and no negative one, got {size!r}")
    return shape


class BuggyStagedWriteTensor(_bu.StagedWriteTensor):
    # the reference constructor, resolving `_shape` to the changed helper
    __init__ = rebind(_bu.StagedWriteTensor.__init__, _bu, _shape=rebind(_shape, _bu))


def target() -> Target:
    f = fork("b16")
    return make_target(
        "b16_staged_size_tuple_only",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(StagedWriteTensor=BuggyStagedWriteTensor),
    )
