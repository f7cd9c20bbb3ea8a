"""b05 (CPU): ``stage_write`` merges a write into the previous one when it starts where that one ended, whatever its row.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write`` (a coalescing step added).

Change: an optimisation ("vLLM's kernel runs one program per staged write: appending tokens to a
row in pieces makes many tiny writes; extend the previous write instead")::

    self._staged_write_indices.append(index)                                     # reference
    self._staged_write_starts.append(start)
    ...

    n_writes = len(self._staged_write_indices)                                   # bug
    if n_writes:
        prev_len = self._staged_write_cu_lens[-1] - (self._staged_write_cu_lens[-2] if n_writes > 1 else 0)
        if self._staged_write_starts[-1] + prev_len == start:                    # the row is not compared
            self._staged_write_contents.extend(values)
            self._staged_write_cu_lens[-1] = len(self._staged_write_contents)
            ...
            return
    self._staged_write_indices.append(index)
    ...

Merging a write that continues the previous one in the same row is harmless (the same elements,
in the same order). The test forgets the row: a write into another row whose start equals the
end column of the previous write is appended to that write, so its values land in the previous
write's row, and its own row is never written. Both writes passed the bounds check on their own,
so nothing is refused. A row of per-request tables written request by request (row ``i`` from
the column where row ``i - 1``'s write ended) is the engine pattern that hits it.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "``stage_write(index, start, x)``
stages ``x`` into row ``index`` from column ``start``"; docs/contracts.md, staged-write: "After each
apply ``.gpu`` equals a numpy model bit for bit".

Smallest input: ``t = StagedWriteTensor((2, 4), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2]); t.stage_write(1, 2, [5]); t.apply_write(); t.gpu``.
Reference: ``[[1, 2, 0, 0], [0, 0, 5, 0]]``. Bug: ``[[1, 2, 5, 0], [0, 0, 0, 0]]``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def stage_write(self: Any, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
        raise TypeError("x must hold numbers (int or float)")
    index, start = self._check(index, start, len(values))
    if not values:
        return
    n_writes = len(self._staged_write_indices)
    if n_writes:
        cu = self._staged_write_cu_lens
        prev_len = cu[-1] - (cu[-2] if n_writes > 1 else 0)
        if self._staged_write_starts[-1] + prev_len == start:  # BUG (r54 b05): the previous write's row not compared
            self._staged_write_contents.extend(values)
            cu[-1] = len(self._staged_write_contents)
            self._staged_write_max_len = max(self._staged_write_max_len, prev_len + len(values))
            return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b05")
    return make_target(
        "b05_staged_adjacent_writes_coalesced",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
