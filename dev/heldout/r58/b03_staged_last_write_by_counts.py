"""b03 (CPU): the last staged write of each element is located as its first occurrence plus its count minus one.

Where: ``h2d_impl/buffer_utils.py::_write`` (every ``apply_write`` and every fused apply).

Change: the dedupe without the reversed copy ("``np.unique`` gives each position's first index and its count in
one pass: the last write of a position is ``first + count - 1``; no ``positions[::-1]``")::

    _, last_rev = np.unique(positions[::-1], return_index=True)                    # reference
    keep = np.sort(len(positions) - 1 - last_rev)

    _, first, counts = np.unique(positions, return_index=True, return_counts=True)  # bug
    keep = np.sort(first + counts - 1)

``first + count - 1`` is the last occurrence only when a position's occurrences are adjacent in staging order.
They are for the repeats the engineer pictured (one element re-staged right away), not for overlapping writes
with anything between them: ``stage_write(0, 0, [1, 2]); stage_write(0, 0, [3])`` stages positions
``[0, 1, 0]``; for position 0, ``first + count - 1`` is index 1, which is position 1's write. ``keep`` then names
some writes twice and others never: position 0 keeps its old value and position 1 is written (twice) with 2.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "``apply_write()`` writes every staged write into
``.gpu`` ... in staging order (a later write of the same element wins)"; docs/contracts.md, staged-write:
"Overlapping writes into one row land in staging order whatever their starts".

Smallest input: ``t = StagedWriteTensor((1, 2), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2]);
t.stage_write(0, 0, [3]); t.apply_write(); t.gpu``.
Reference: ``[[3, 2]]``. Bug: ``[[0, 2]]`` (element 0 never written).
"""

from __future__ import annotations

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: async_tensor_h2d)


def _write(gpu: torch.Tensor, positions: np.ndarray, contents: torch.Tensor) -> None:
    """``gpu.view(-1)[positions] = contents`` with the last write of a position winning, on ``gpu``'s current stream."""
    _, first, counts = np.unique(positions, return_index=True, return_counts=True)
    keep = np.sort(first + counts - 1)  # BUG (r58 b03): the last occurrence only if the occurrences are adjacent
    where = async_tensor_h2d(positions[keep], device=gpu.device)
    gpu.view(-1).index_copy_(0, where, contents.index_select(0, async_tensor_h2d(keep, device=gpu.device)))


def target() -> Target:
    f = fork("b03")
    return make_target(
        "b03_staged_last_write_by_counts",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03", names={"_write": _write}),
    )
