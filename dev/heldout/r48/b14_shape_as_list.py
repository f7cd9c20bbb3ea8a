"""b14 (CPU): ``_shape`` returns the shape as a list, and the pool compares a tuple with it (``(3,) != [3]`` is always True).

Where: ``h2d_impl/buffer_utils.py::_shape`` (the size parser of every Model Runner V2 class).

Change (one line)::

    shape = tuple(operator.index(d) for d in dims)   # reference
    shape = [operator.index(d) for d in dims]        # bug: "a list comprehension is faster than tuple(genexpr)"

``torch.zeros`` takes either, and ``StagedWriteTensor``/``NonUvaBuffer`` work as before, but
``UvaBufferPool.copy_to_uva`` tests ``tuple(shape[1:]) != self._shape[1:]``: a tuple never
equals a list, so every call, of any shape and any rank (``() != []``), is refused with
``ValueError`` and ``UvaBackedTensor`` (whose constructor sends its zeros through the pool)
cannot be built.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool`` docstring: "``copy_to_uva(x)``
writes ``x`` into the next slot ... and returns the slot's view of ``len(x)`` rows" (refusal
only when "``x``'s trailing shape differs from a slot's"); docs/reference.md: "`UvaBufferPool(size,
dtype, max_concurrency=None)`, `UvaBackedTensor(size, dtype, max_concurrency=None)` ... with the
same constructors and methods" as vLLM; docs/contracts.md, pool.

Smallest input: ``UvaBufferPool(4, torch.int32).copy_to_uva([1])``.
Reference: ``tensor([1], dtype=torch.int32)``. Bug: ``ValueError: x has shape (1,); a slot holds
rows of shape []``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def _shape(size: int | Sequence[int]) -> tuple[int, ...]:
    """``size`` as a shape of non-negative ints, at least one dimension; TypeError/ValueError naming ``size``."""
    dims: Sequence[Any] = (size,) if not isinstance(size, (tuple, list, torch.Size)) else size
    try:
        shape = [operator.index(d) for d in dims]  # BUG (r48 b14): a list, compared with tuples later
    except TypeError:
        raise TypeError(f"size must be an int or a sequence of ints, got {size!r}") from None
    if not shape or any(d < 0 for d in shape):
        raise ValueError(f"size must have at least one dimension and no negative one, got {size!r}")
    return shape


def target() -> Target:
    f = fork("b14")
    return make_target(
        "b14_shape_as_list",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b14", names={"_shape": _shape}),
    )
