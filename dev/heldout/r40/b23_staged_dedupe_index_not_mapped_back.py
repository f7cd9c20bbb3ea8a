"""b23 (CPU-visible): the last-write-wins dedupe uses indices of the reversed positions on the forward ones.

Where: ``h2d_impl/buffer_utils.py``, ``_write``.

Change: ``keep = np.sort(len(positions) - 1 - last_rev)`` -> ``keep = np.sort(last_rev)``.

Why plausible: the dedupe reads ``np.unique`` of ``positions[::-1]`` so that the *last*
staged write of a position wins; the mapping of those reversed indices back to forward
ones (``len - 1 - i``) looks like noise next to the sort and is dropped in a tidy-up. The
indices then point at other writes: some positions are written twice (by ``index_copy_``
with duplicate indices, in no defined order) and others not at all. Without overlapping
writes ``last_rev`` is a permutation of all indices and every value still lands, so only
a schedule that rewrites an element shows it.

Promise broken: ``StagedWriteTensor`` docstring: "``apply_write()`` writes every staged
write into ``.gpu`` ... in staging order (a later write of the same element wins)";
docs/reference.md "overlapping staged writes apply in staging order (the last staged
write of an element wins)".

Smallest input: ``t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write(0, 0, [1]);
t.stage_write(0, 0, [2]); t.stage_write(1, 0, [3]); t.apply_write()``.
Reference: ``t.gpu == tensor([2, 3])``.
Bug: ``t.gpu == tensor([2, 0])`` (position 0 written twice, position 1 never; on the CPU
the later duplicate wins, elsewhere either may).
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import make_target


def _write(gpu: torch.Tensor, positions: np.ndarray, contents: torch.Tensor) -> None:
    _, last_rev = np.unique(positions[::-1], return_index=True)
    keep = np.sort(last_rev)  # BUG: indices into the reversed positions, not mapped back
    where = async_tensor_h2d(positions[keep], device=gpu.device)  # noqa: F821
    gpu.view(-1).index_copy_(0, where, contents.index_select(0, async_tensor_h2d(keep, device=gpu.device)))  # noqa: F821


def target() -> Target:
    return make_target(
        "b23_staged_dedupe_index_not_mapped_back", buffer_utils=bu_fork("b23", names={"_write": _write})
    )
