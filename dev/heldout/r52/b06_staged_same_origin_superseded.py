"""b06 (CPU): a staged write from the same row and column as an earlier one drops the earlier write whole.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.staged_positions`` (so ``apply_write`` and
``FusedStagedWriter.apply``).

Change: an "optimisation" skips writes that a later write "supersedes" (vLLM restages a
request's whole row from column 0 when its slot is reused in the same step, so the earlier
write need not be converted or sent). Supersession is keyed by ``(index, start)`` alone::

    for index, start, end in zip(indices, starts, cu_lens, strict=True):            # reference: every write
        positions.append(index * self._row_len + start + np.arange(end - begin))

    last = {(i, s): k for k, (i, s) in enumerate(zip(indices, starts))}            # bug
    for k, (index, start, end) in enumerate(zip(indices, starts, cu_lens, strict=True)):
        if last[(index, start)] == k:                                              # only the last write of an origin
            positions.append(...); values.extend(contents[begin:end])

A later write that is at least as long as the earlier one gives the reference's result; a
*shorter* later write from the same origin now also erases the earlier write's tail, which
the reference keeps (only the elements both writes cover are overwritten).

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor`` docstring: "``apply_write()`` writes
every staged write into ``.gpu`` ... in staging order (a later write of the same element wins)";
docs/contracts.md, staged-write: "Overlapping writes into one row land in staging order whatever
their starts (... a later write starting ... at an earlier one's, inside or around it ...)".

Smallest input: ``t = StagedWriteTensor((1, 4), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2, 3]); t.stage_write(0, 0, [9]); t.apply_write(); t.gpu``.
Reference: ``[[9, 2, 3, 0]]``. Bug: ``[[9, 0, 0, 0]]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def staged_positions(self: Any) -> tuple[np.ndarray, list[int | float]]:
    positions: list[np.ndarray] = []
    values: list[int | float] = []
    # a later write from the same row and column supersedes an earlier one: skip the superseded writes
    last = {
        (i, s): k for k, (i, s) in enumerate(zip(self._staged_write_indices, self._staged_write_starts, strict=True))
    }
    begin = 0
    for k, (index, start, end) in enumerate(
        zip(self._staged_write_indices, self._staged_write_starts, self._staged_write_cu_lens, strict=True)
    ):
        if last[(index, start)] == k:  # BUG (r52 b06): a shorter later write from the same origin drops the whole write
            positions.append(index * self._row_len + start + np.arange(end - begin, dtype=np.int64))
            values.extend(self._staged_write_contents[begin:end])
        begin = end
    flat = np.concatenate(positions) if positions else np.zeros(0, dtype=np.int64)
    return flat, values


def target() -> Target:
    f = fork("b06")
    return make_target(
        "b06_staged_same_origin_superseded",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06", methods={"StagedWriteTensor": {"staged_positions": staged_positions}}),
    )
