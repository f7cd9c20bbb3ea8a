"""b12 staged_row_offset_num_rows (CPU) -- ``buffer_utils.StagedWriteTensor.staged_positions``.

What changed: a write's flat position is computed with the wrong dimension as row stride::

    index * self._row_len + start + np.arange(...)      # reference
    index * self.num_rows + start + np.arange(...)      # bug

Realistic: two integer attributes set side by side in ``__init__`` (``num_rows`` and
``_row_len``), one public and one private; the public one gets picked. For square tensors
and 1-D tensors of one row nothing changes.

Promise broken (buffer_utils ``StagedWriteTensor``: "``stage_write(index, start, x)`` stages
``x`` into row ``index`` from column ``start``"; contract ``staged-write``: ``.gpu`` equals
the numpy model after each apply).

Smallest input: ``t = StagedWriteTensor((2, 3), torch.int32, "cpu")``;
``t.stage_write(1, 0, [7])``; ``t.apply_write()``: reference ``[[0, 0, 0], [7, 0, 0]]``;
bug ``[[0, 0, 7], [0, 0, 0]]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def staged_positions(self):
    positions = []
    begin = 0
    for index, start, end in zip(
        self._staged_write_indices, self._staged_write_starts, self._staged_write_cu_lens, strict=True
    ):
        positions.append(index * self.num_rows + start + np.arange(end - begin, dtype=np.int64))  # noqa: F821
        begin = end
    flat = np.concatenate(positions) if positions else np.zeros(0, dtype=np.int64)  # noqa: F821
    return flat, list(self._staged_write_contents)


def target() -> Target:
    f = fork("b12")
    return make_target(
        "b12_staged_row_offset_num_rows",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b12", methods={"StagedWriteTensor": {"staged_positions": staged_positions}}),
    )
