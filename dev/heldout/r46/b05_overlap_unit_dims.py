"""b05 (CPU): size-1 dimensions take part in the internal-overlap test of ``out``.

Where: ``h2d._may_overlap`` (called by ``_check_out``). The reference sorts the
``(stride, size)`` pairs of the dimensions with ``size > 1``: a dimension of one element
has no second element to collide with, whatever its stride. The bug filters with ``if sz``
("skip empty dimensions"), so a size-1 dimension with stride 0 counts, and ``0 <= reach``
flags it as overlapping.

Why realistic: ``> 1`` read as a guard against empty dimensions and "simplified"; size-1
dimensions with stride 0 are common in buffers that come from numpy
(``np.newaxis`` gives stride 0) or from ``as_strided``/``expand`` views.

Smallest input: ``async_tensor_h2d([[1.0, 2.0, 3.0]], out=torch.from_numpy(np.zeros(3,
np.float32)[None]))`` (``out`` of shape (1, 3), strides (0, 1)). Reference: ``out`` written,
``[[1., 2., 3.]]``. Bug: ``ValueError: out has internally overlapping memory``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _may_overlap(t):
    """True unless the strides provably give every element its own address."""
    reach = 0
    for stride, size in sorted((st, sz) for st, sz in zip(t.stride(), t.shape) if sz):  # BUG: was `if sz > 1`
        if stride <= reach:
            return True
        reach += stride * (size - 1)
    return False


def target() -> Target:
    f = fork("b05", h2d={"_may_overlap": _may_overlap})
    return make_target(
        "b05_overlap_unit_dims",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05"),
    )
