"""b04 (CPU): the deduped writes go to ``np.unique``'s sorted positions, paired with contents kept in staging order.

Where: ``h2d_impl/buffer_utils.py::_write`` (every ``apply_write`` and every fused apply).

Change: one fancy index saved ("``np.unique`` already returns the distinct positions: write those, no
``positions[keep]``")::

    _, last_rev = np.unique(positions[::-1], return_index=True)                      # reference
    keep = np.sort(len(positions) - 1 - last_rev)
    where = async_tensor_h2d(positions[keep], device=gpu.device)

    targets, last_rev = np.unique(positions[::-1], return_index=True)                # bug
    keep = np.sort(len(positions) - 1 - last_rev)
    where = async_tensor_h2d(targets, device=gpu.device)

The two arrays hold the same set of positions but in different orders: ``np.unique``'s are ascending, ``keep``
(and so the contents it selects) is in staging order. They pair up only while the writes were staged in
ascending position order. Staging row 1 before row 0 (``stage_write_elem(1, 5); stage_write_elem(0, 7)``: a
request slot filled before a lower one, as the runner's ``add_request`` does in any order) swaps the values.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "``stage_write(index, start, x)`` stages ``x`` into row
``index`` from column ``start``; ``apply_write()`` writes every staged write into ``.gpu``"; docs/contracts.md,
staged-write: "After each apply ``.gpu`` equals a numpy model bit for bit".

Smallest input: ``t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write_elem(1, 5); t.stage_write_elem(0, 7);
t.apply_write(); t.gpu``.
Reference: ``[7, 5]``. Bug: ``[5, 7]``.
"""

from __future__ import annotations

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: async_tensor_h2d)


def _write(gpu: torch.Tensor, positions: np.ndarray, contents: torch.Tensor) -> None:
    """``gpu.view(-1)[positions] = contents`` with the last write of a position winning, on ``gpu``'s current stream."""
    targets, last_rev = np.unique(positions[::-1], return_index=True)
    keep = np.sort(len(positions) - 1 - last_rev)  # the last write of each position, in staging order
    where = async_tensor_h2d(targets, device=gpu.device)  # BUG (r58 b04): ascending, not in keep's (staging) order
    gpu.view(-1).index_copy_(0, where, contents.index_select(0, async_tensor_h2d(keep, device=gpu.device)))


def target() -> Target:
    f = fork("b04")
    return make_target(
        "b04_staged_unique_positions_unpaired",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04", names={"_write": _write}),
    )
