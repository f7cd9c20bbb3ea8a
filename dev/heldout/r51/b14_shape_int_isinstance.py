"""b14 (CPU): Model Runner V2's shapes test a scalar size with ``isinstance(size, int)``: a numpy integer size is iterated and refused.

Where: ``h2d_impl/buffer_utils.py::_shape`` (every class's constructor: ``UvaBuffer``,
``NonUvaBuffer``, ``UvaBufferPool``, ``UvaBackedTensor``, ``StagedWriteTensor``).

Change (one test)::

    dims = (size,) if not isinstance(size, (tuple, list, torch.Size)) else size   # reference: anything not a sequence is one dimension
    dims = (size,) if isinstance(size, int) else size                             # bug: "an int is one dimension, the rest a sequence"

Equivalent for Python ints, tuples, lists and ``torch.Size``. A numpy integer (``np.int64(4)``:
``max_num_reqs`` read from a config array, ``len`` of an ndarray axis times a factor) is not an
``int``, so it is iterated: ``'numpy.int64' object is not iterable`` becomes ``TypeError: size
must be an int or a sequence of ints, got np.int64(4)``. Every numpy integer size is refused where
``operator.index`` takes it; a 0-d integer tensor too.

Promise broken: h2d_impl/buffer_utils.py ``_shape`` docstring: "``size`` as a shape of
non-negative ints" (an int: ``operator.index``), and the constructors' "size: the shape (an int
or a sequence of ints)"; docs/contracts.md, buffer: "sizes as numpy integers ... build what their
plain spelling builds" (the same spelling rule the reference applies to every size it takes).

Smallest input: ``UvaBufferPool(np.int64(4), torch.int32).copy_to_uva([1, 2])``.
Reference: ``tensor([1, 2], dtype=torch.int32)``. Bug: ``TypeError: size must be an int or a
sequence of ints, got np.int64(4)``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _shape(size: int | Sequence[int]) -> tuple[int, ...]:
    dims: Sequence[Any] = (size,) if isinstance(size, int) else size  # BUG (r51 b14): numpy integers iterated
    try:
        shape = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(f"size must be an int or a sequence of ints, got {size!r}") from None
    if not shape or any(d < 0 for d in shape):
        raise ValueError(f"size must have at least one dimension and no negative one, got {size!r}")
    return shape


def target() -> Target:
    f = fork("b14")
    return make_target(
        "b14_shape_int_isinstance",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b14", names={"_shape": _shape}),
    )
