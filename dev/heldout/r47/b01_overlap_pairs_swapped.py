"""b01 overlap_pairs_swapped (CPU) -- ``h2d._may_overlap``.

What changed: the generator that pairs each dimension's stride with its size unpacks the
``zip(t.stride(), t.shape)`` pairs under swapped names::

    sorted((st, sz) for st, sz in zip(t.stride(), t.shape) if sz > 1)      # reference
    sorted((st, sz) for sz, st in zip(t.stride(), t.shape) if sz > 1)      # bug

so "stride" now holds the size and "size" the stride, and the ``> 1`` filter tests the
stride. Realistic: a readability refactor of a one-line comprehension (the names read
naturally either way, and 1-D/2-D contiguous ``out`` tensors still pass, since stride-1
dimensions are filtered out).

Promise broken (README, contract ``bad-input``; h2d docstring): ``out`` whose elements may
share an address (``expand``) is refused with ``ValueError`` naming ``out``; and a valid
3-D ``out`` must be written (contract ``out``).

Smallest input: ``async_tensor_h2d([1., 2., 3.], out=torch.zeros(1).expand(3))``:
reference ``ValueError`` (internally overlapping memory); bug: the check passes (stride 0
is filtered out) and torch's own ``copy_`` raises ``RuntimeError``. Also
``async_tensor_h2d(data of shape (2, 3, 4), out=torch.zeros(2, 3, 4))``: reference writes
``out``; bug refuses a plain contiguous ``out`` with ``ValueError``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _may_overlap(t):
    reach = 0
    for stride, size in sorted((st, sz) for sz, st in zip(t.stride(), t.shape) if sz > 1):
        if stride <= reach:
            return True
        reach += stride * (size - 1)
    return False


def target() -> Target:
    f = fork("b01", h2d={"_may_overlap": _may_overlap})
    return make_target(
        "b01_overlap_pairs_swapped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01"),
    )
