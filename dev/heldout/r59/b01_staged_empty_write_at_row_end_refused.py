"""b01 (CPU): ``stage_write`` refuses a ``start`` equal to the row's length, so an empty write at the row's end raises.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor._check`` (every ``stage_write`` and ``stage_write_elem``).

Change: a "hardened" column check ("``start`` must name a column of the row, like ``index`` names a row")::

    if start < 0 or start + length > self._row_len:                                   # reference

    if not 0 <= start < self._row_len or start + length > self._row_len:              # bug

For a write of one or more values the two agree (``start + length > row_len`` already refuses every start from
``row_len`` on). They differ only for an empty write: its one valid position past the last column, ``start ==
row_len``, is refused, and so is every write, empty ones included, into a tensor whose rows have no elements
(``(rows, 0)``: no start is ``< 0``). Model Runner V2's block table stages ``stage_write(req, start, block_ids)``
with ``start`` the number of blocks the request already holds (``num_blocks.np[i, req]``): a request whose row is
full and that gets no new block this step stages ``([], start=row_len)``, which now raises ``IndexError`` in the
middle of the step's input preparation; a speculative-decoding state with 0 draft tokens (zero-width rows) cannot
stage its empty rows at all.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "a row past the tensor, or ``start + len(x)`` past
the row, is refused" (``start + 0 == row_len`` is not past it); ``stage_write``: "an empty ``x`` stages nothing";
docs/contracts.md, staged-write: "into a zero-width row only an empty write fits".

Smallest input: ``t = StagedWriteTensor((1, 2), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2]);
t.stage_write(0, 2, []); t.apply_write(); t.gpu``.
Reference: ``[[1, 2]]``. Bug: ``IndexError: start=2 with 0 values is outside a row of 2 elements`` (and
``StagedWriteTensor((2, 0), ...).stage_write(0, 0, [])``: ``None`` against ``IndexError``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _check(self: Any, index: Any, start: Any, length: int) -> tuple[int, int]:
    for name, v in (("index", index), ("start", start)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an int, got {type(v).__name__}")
    index, start = int(index), int(start)
    if not 0 <= index < self.num_rows:
        raise IndexError(f"index={index} is outside the tensor's rows [0, {self.num_rows})")
    if not 0 <= start < self._row_len or start + length > self._row_len:  # BUG (r59 b01): start == row_len refused
        raise IndexError(f"start={start} with {length} values is outside a row of {self._row_len} elements")
    return index, start


def target() -> Target:
    f = fork("b01")
    return make_target(
        "b01_staged_empty_write_at_row_end_refused",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01", methods={"StagedWriteTensor": {"_check": _check}}),
    )
