"""b17 (CPU): staged writes are put in (row, start) order before the dedupe, so a later write that starts earlier loses.

Where: buffer_utils.py, ``StagedWriteTensor.staged_positions``.
Change: the writes are walked in ``sorted(range(k), key=lambda i: (index[i], start[i]))`` order (a stable
sort) instead of staging order.
Why plausible: "coalesce the writes row-major so the scatter walks memory in order"; the sort is stable,
so the developer believes that two writes of the same element keep their order. They do when both start
at the same column; an overlapping pair with different starts is reordered.
Promise broken: StagedWriteTensor docstring: "apply_write() writes every staged write into .gpu ... in
staging order (a later write of the same element wins)"; staged_positions docstring: "in staging order".
Smallest input:
    t = StagedWriteTensor((1, 4), torch.int32, "cpu")
    t.stage_write(0, 1, [9]); t.stage_write(0, 0, [1, 2, 3]); t.apply_write()
Reference: [[1, 2, 3, 0]] (the later write wins at column 1). Bug: [[1, 9, 3, 0]].
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target

TAG = "b17"


def staged_positions(self):
    bounds = []
    begin = 0
    for index, start, end in zip(
        self._staged_write_indices, self._staged_write_starts, self._staged_write_cu_lens, strict=True
    ):
        bounds.append((index, start, begin, end))
        begin = end
    order = sorted(range(len(bounds)), key=lambda i: bounds[i][:2])  # BUG: row-major, not staging order
    positions = []
    values = []
    for i in order:
        index, start, b, e = bounds[i]
        positions.append(index * self._row_len + start + np.arange(e - b, dtype=np.int64))
        values.extend(self._staged_write_contents[b:e])
    flat = np.concatenate(positions) if positions else np.zeros(0, dtype=np.int64)
    return flat, values


def classes():
    return bu_fork(TAG, methods={"StagedWriteTensor": {"staged_positions": staged_positions}})


def target() -> Target:
    return bu_target(TAG, "b17_staged_writes_sorted_by_row_start", classes())
