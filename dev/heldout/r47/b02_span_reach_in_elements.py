"""b02 span_reach_in_elements (CPU) -- ``h2d._byte_span``.

What changed: the reach of each dimension is added to a *byte* address without the
element size::

    reach = stride * (size - 1) * t.element_size()     # reference
    reach = stride * (size - 1)                        # bug (elements added to bytes)

Realistic: strides are in elements everywhere else in the file; a unit slip in the one
helper that works in host addresses. For 1-byte dtypes nothing changes, so a quick test
with uint8/bool passes.

Promise broken (reference.md, ``out``): "not overlapping ``data``'s bytes (disjoint slices of
one buffer are fine)" -- an ``out`` overlapping ``data`` is refused with ``ValueError`` and
nothing is written (contract ``bad-input``, kind ``out-aliases-data``).

Smallest input: ``b = torch.arange(8.)``; ``async_tensor_h2d(b[:4], out=b[2:6])``:
reference ``ValueError`` ("out shares memory with data"); bug: data's span is computed as
7 bytes instead of 16, no overlap is seen, and torch's ``copy_`` raises ``RuntimeError``
(partial overlap) instead.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _byte_span(t):
    lo = hi = t.data_ptr()
    for stride, size in zip(t.stride(), t.shape):
        reach = stride * (size - 1)
        lo, hi = (lo + reach, hi) if reach < 0 else (lo, hi + reach)
    return lo, hi + t.element_size()


def target() -> Target:
    f = fork("b02", h2d={"_byte_span": _byte_span})
    return make_target(
        "b02_span_reach_in_elements",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02"),
    )
