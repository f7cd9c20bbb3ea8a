"""b01 (CPU): staged writes whose positions span exactly as many elements as they number are written as one slice, in staging order.

Where: ``h2d_impl/buffer_utils.py::_write`` (every ``StagedWriteTensor.apply_write`` and every
``FusedStagedWriter.apply``).

Change: a fast path for the common apply ("a request's row written from column 0, or consecutive
requests' single elements: one contiguous run, so one slice copy instead of ``np.unique``, two
index tensors, an ``index_select`` and an ``index_copy_``")::

    _, last_rev = np.unique(positions[::-1], return_index=True)                  # reference (first line)

    lo, hi = int(positions.min()), int(positions.max())                         # bug (added first)
    if hi - lo + 1 == len(positions):
        gpu.view(-1)[lo : hi + 1].copy_(contents)
        return
    _, last_rev = np.unique(positions[::-1], return_index=True)

The test is necessary for a run, not sufficient: it holds for any positions that fill their span
with as many writes as elements, whatever their order and whether some repeat. Writes staged in
descending order (Model Runner V2 hands out request rows with ``free_indices.pop()``: the newest
request gets the highest free row, so consecutive ``stage_write_elem`` calls go down) are written
reversed, and a repeated element beside a gap (``[0, 0, 2]``) writes a value into the element that
was never staged and loses the last write of the repeated one. Ascending runs, the case it was
written for, come out right.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "``stage_write(index, start, x)``
stages ``x`` into row ``index`` from column ``start``; ``apply_write()`` writes every staged write into
``.gpu`` on the current stream, in staging order (a later write of the same element wins)";
docs/contracts.md, staged-write: "After each apply ``.gpu`` equals a numpy model bit for bit: writes
applied in staging order, the last staged write of an element winning".

Smallest input: ``t = StagedWriteTensor(4, torch.int32, 'cpu'); t.stage_write_elem(3, 7);
t.stage_write_elem(2, 6); t.apply_write(); t.gpu``.
Reference: ``tensor([0, 0, 6, 7], dtype=torch.int32)``. Bug: ``tensor([0, 0, 7, 6], dtype=torch.int32)``
(and ``[0, 0, 2]`` staged as 5, 8, 9 into a 1-D tensor of 3: reference ``[8, 0, 9]``, bug ``[5, 8, 9]``).
"""

from __future__ import annotations

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: async_tensor_h2d)


def _write(gpu: torch.Tensor, positions: np.ndarray, contents: torch.Tensor) -> None:
    """``gpu.view(-1)[positions] = contents`` with the last write of a position winning, on ``gpu``'s current stream."""
    lo, hi = int(positions.min()), int(positions.max())
    if hi - lo + 1 == len(positions):  # BUG (r56 b01): "one contiguous run": a span test, not a run test
        gpu.view(-1)[lo : hi + 1].copy_(contents)
        return
    _, last_rev = np.unique(positions[::-1], return_index=True)
    keep = np.sort(len(positions) - 1 - last_rev)  # the last write of each position, in staging order
    where = async_tensor_h2d(positions[keep], device=gpu.device)
    gpu.view(-1).index_copy_(0, where, contents.index_select(0, async_tensor_h2d(keep, device=gpu.device)))


def target() -> Target:
    f = fork("b01")
    return make_target(
        "b01_staged_contiguous_run_by_span",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01", names={"_write": _write}),
    )
