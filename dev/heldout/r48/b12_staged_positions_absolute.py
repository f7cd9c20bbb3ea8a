"""b12 (CPU): staged positions built from the write's *absolute* range in the contents list instead of a range of its own length.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.staged_positions`` (read by every
``apply_write`` and ``FusedStagedWriter.apply``).

Change (one line)::

    index * self._row_len + start + np.arange(end - begin, dtype=np.int64)   # reference: 0 .. len-1
    index * self._row_len + start + np.arange(begin, end, dtype=np.int64)    # bug: begin .. end-1

The first staged write lands right (``begin`` is 0); every later write is shifted right by
the number of values staged before it: into later columns, the next row, or past the end
of ``.gpu`` (then ``index_copy_`` raises ``IndexError``), silently wrong in the first two
cases.

Promise broken: docs/contracts.md, staged-write: "After each apply `.gpu` equals a numpy
model bit for bit: writes applied in staging order, the last staged write of an element
winning"; h2d_impl/buffer_utils.py ``StagedWriteTensor`` docstring: "``stage_write(index,
start, x)`` stages ``x`` into row ``index`` from column ``start``; ``apply_write()`` writes
every staged write into ``.gpu``"; fused-writes: "one `FusedStagedWriter.apply` equals each
tensor's own `apply_write`" (both wrong alike, so only the staged-write model sees it).

Smallest input: ``t = StagedWriteTensor((2, 4), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2]);
t.stage_write(1, 0, [3, 4]); t.apply_write(); t.gpu``.
Reference: ``[[1, 2, 0, 0], [3, 4, 0, 0]]``. Bug: ``[[1, 2, 0, 0], [0, 0, 3, 4]]``.
"""

from __future__ import annotations

import numpy as np

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def staged_positions(self) -> tuple[np.ndarray, list[int | float]]:
    """The staged writes as flat element positions of ``.gpu`` and their values, in staging order."""
    positions: list[np.ndarray] = []
    begin = 0
    for index, start, end in zip(
        self._staged_write_indices, self._staged_write_starts, self._staged_write_cu_lens, strict=True
    ):
        positions.append(index * self._row_len + start + np.arange(begin, end, dtype=np.int64))  # BUG (r48 b12)
        begin = end
    flat = np.concatenate(positions) if positions else np.zeros(0, dtype=np.int64)
    return flat, list(self._staged_write_contents)


def target() -> Target:
    f = fork("b12")
    return make_target(
        "b12_staged_positions_absolute",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b12", methods={"StagedWriteTensor": {"staged_positions": staged_positions}}),
    )
