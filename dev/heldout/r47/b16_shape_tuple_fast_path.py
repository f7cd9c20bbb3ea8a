"""b16 shape_tuple_fast_path (CPU) -- ``buffer_utils._shape`` (all six classes' ``size``).

What changed: a fast path returns a non-empty tuple as it is, unvalidated::

    if isinstance(size, tuple) and size:   # bug: "already a shape"
        return size

Realistic: ``_shape`` runs for every slot a pool makes or grows; tuples are what the
classes pass each other, so skipping the per-dimension ``operator.index`` looks free. But a
caller's tuple reaches torch's allocator unchecked: negative or non-integer dimensions give
torch's own ``RuntimeError``/``TypeError`` without naming ``size``, and a tuple of numpy
integers is kept as the pool's shape.

Promise broken (buffer_utils ``UvaBufferPool``/``StagedWriteTensor``: "Raises: TypeError,
ValueError: a bad ``size`` ... (named)"; ``_shape``: "TypeError/ValueError naming
``size``"; reference.md: "Errors: ``TypeError`` (wrong kind), ``ValueError`` (wrong value),
... naming the argument").

Smallest input: ``StagedWriteTensor((2, -1), torch.int32, "cpu")``: reference
``ValueError`` ("size must have ... no negative one"); bug ``RuntimeError`` from
``torch.zeros`` ("Trying to create tensor with negative dimension -1").
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _shape(size):
    if isinstance(size, tuple) and size:
        return size
    dims = (size,) if not isinstance(size, (tuple, list, torch.Size)) else size  # noqa: F821
    try:
        shape = tuple(operator.index(d) for d in dims)  # noqa: F821
    except TypeError:
        raise TypeError(f"size must be an int or a sequence of ints, got {size!r}") from None
    if not shape or any(d < 0 for d in shape):
        raise ValueError(f"size must have at least one dimension and no negative one, got {size!r}")
    return shape


def target() -> Target:
    f = fork("b16")
    return make_target(
        "b16_shape_tuple_fast_path",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b16", names={"_shape": _shape}),
    )
