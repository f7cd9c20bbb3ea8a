"""b23 (GPU only): ``_dense`` is replaced by "does not overlap", so pinned views with gaps take the dense path.

The change: ``h2d._dense(t)`` returns ``not _may_overlap(t)`` (the helper ``_check_out``
already uses) instead of checking that the strides fill the bytes exactly.

Why an engineer writes it: two stride walks in one file that both sort ``(stride, size)``
pairs look like duplicates; "dense" and "non-overlapping" are easy to conflate (and
``torch._prims_common`` names the real property ``is_non_overlapping_and_dense``).

What breaks (CUDA only; a ``"cpu"`` target never reaches ``_to_device``): a pinned view with
gaps of the target dtype -- a column slice ``pinned[:, :k]`` -- no longer goes to
``_gather_span`` (DMA of its span, gather on the device) but to ``source.to(target,
non_blocking=True)`` (or ``out.copy_(source, non_blocking=True)`` for an ``out`` of the same
strides). torch's CUDA copy of a non-contiguous host source makes a *pageable*
contiguous temporary (``src.contiguous()``) and DMAs from it: a "Memcpy HtoD (Pageable ->
Device)" in the profiler and a host that waits for the stream -- the staging contract
(``prop_staging_strided_pinned``) and the non-blocking contract (64 MiB pinned column
slice behind 100 ms of work) fail; docs/reference.md: "a view with gaps ... is DMA'd as
that span and gathered on the device"; vLLM's documented divergence "pageable copy first:
pageable DMA, the host blocks". Values stay right. Seen on one H200 (torch 2.11, the change
applied to the reference in a scratch process): the profiler shows "Memcpy HtoD (Pageable
-> Device)" for ``pinned[:, :4]`` of an 8x8 int32 tensor, "Pinned -> Device" for the reference.
"""

from __future__ import annotations

from ._common import fork, fork_target


def _dense(t):
    return not _may_overlap(t)  # BUG: "non-overlapping" is not "dense": views with gaps pass


def target():
    return fork_target("b23-dense-is-non-overlapping", fork("b23", h2d={"_dense": _dense}))
