"""b07 (CPU): a write staged again at the same (row, start) replaces the pending one where it stood in the order.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write`` (every ``stage_write`` and ``stage_write_elem``).

Change: re-staging dedupes itself ("the block table re-stages a request's row from column 0 when it is resumed or
overwritten (``append_block_ids(..., overwrite=True)``): replace the pending write of that (row, start) instead of
staging a second one that the apply must dedupe")::

    self._staged_write_indices.append(index)                                          # reference: always a new write
    ...

    for k, (i, s) in enumerate(zip(self._staged_write_indices, self._staged_write_starts)):   # bug, first
        if i == index and s == start:  # the same origin: replace write k's values, keep the later writes' offsets
            ...; return
    self._staged_write_indices.append(index)
    ...

The replacement keeps write ``k``'s place in the staging order, as a dict keeps a key's first insertion position
when its value is updated. Writes staged between the old and the new one at that origin are now *later* than it:
where they overlap the new write they win, though they were staged before it. (A replacement of another length
also drops or adds elements at the old write's end, which the apply then writes as if staged first.)

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "``apply_write()`` writes every staged write into
``.gpu`` ... in staging order (a later write of the same element wins)"; docs/contracts.md, staged-write:
"Overlapping writes into one row land in staging order whatever their starts".

Smallest input: ``t = StagedWriteTensor((1, 2), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2]);
t.stage_write(0, 1, [9]); t.stage_write(0, 0, [3, 4]); t.apply_write(); t.gpu``.
Reference: ``[[3, 4]]``. Bug: ``[[3, 9]]`` (the write at column 1, staged before ``[3, 4]``, is applied after it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def stage_write(self: Any, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    """Stage ``x`` into row ``index`` from column ``start``; an empty ``x`` stages nothing."""
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(
        isinstance(v, (bool, np.timedelta64)) or not isinstance(v, (int, float, np.integer, np.floating))
        for v in values
    ):
        raise TypeError("x must hold numbers (int or float)")
    index, start = self._check(index, start, len(values))
    if not values:
        return
    # BUG (r59 b07): a re-staged (row, start) replaces the pending write in place, keeping that write's place in
    # the staging order
    for k, (i, s) in enumerate(zip(self._staged_write_indices, self._staged_write_starts)):
        if i == index and s == start:
            begin = self._staged_write_cu_lens[k - 1] if k else 0
            end = self._staged_write_cu_lens[k]
            self._staged_write_contents[begin:end] = values
            delta = len(values) - (end - begin)
            for j in range(k, len(self._staged_write_cu_lens)):
                self._staged_write_cu_lens[j] += delta
            self._staged_write_max_len = max(self._staged_write_max_len, len(values))
            return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b07")
    return make_target(
        "b07_staged_origin_replaced_in_place",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b07", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
