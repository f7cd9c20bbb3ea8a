"""The out self-overlap test compares ``stride < reach`` (an off-by-one).

What changed: ``h2d._may_overlap(out)`` sorts the dimensions by stride and requires each
stride to step *past* everything the smaller dimensions reach (``stride <= reach`` means
overlap). The change makes it ``stride < reach``: a reviewer read ``reach`` as the extent
("one past the last element") and flagged ``<=`` as refusing adjacent, non-overlapping
dimensions.

Why an engineer writes it: ``reach`` is the offset of the last element reached, not one
past it; the two conventions are one character apart and both look right.

Promise broken: contracts "bad-input" (``out-overlapping``, ``out-as-strided-overlap``,
``out-as-strided-overlap-3d``: ValueError naming ``out``, nothing written) and
docs/reference.md (``out``: "no elements sharing an address"). An ``as_strided`` out whose
rows overlap by one element is accepted and written, the shared elements getting the
last write; an expanded out (stride 0) gets torch's RuntimeError from ``copy_`` instead
of the ValueError.

Smallest input: ``out = torch.empty_strided((2, 2), (1, 1), dtype=torch.int64).fill_(77)``;
``async_tensor_h2d([[1, 2], [3, 4]], out=out)``: reference ``ValueError: out has internally
overlapping memory``, ``out`` untouched; bug returns ``out`` (written: it reads
``[[1, 3], [3, 4]]``, not the data).
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target


def _may_overlap(t: torch.Tensor) -> bool:
    reach = 0
    for stride, size in sorted((st, sz) for st, sz in zip(t.stride(), t.shape) if sz > 1):
        if stride < reach:  # BUG: was `stride <= reach` (reach is the last element's offset, not one past it)
            return True
        reach += stride * (size - 1)
    return False


def target() -> Target:
    return fork_target("b07_overlap_check_off_by_one", fork("b07", h2d={"_may_overlap": _may_overlap}))
