"""b15 (CPU): ``StagedWriteTensor``'s end bound tests the last written column with ``>`` (not ``>=``): a write one element too long spills into the next row.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor._check``, the ``start``/length bound.

Change (one comparison)::

    if start < 0 or start + length > self._row_len:        # reference: the end, exclusive
    if start < 0 or start + length - 1 > self._row_len:    # bug: "the last column written is start + length - 1"

The engineer rewrote the test in terms of the last column written, ``start + length - 1``,
and kept ``>`` where the last column must be ``< row_len``. A write ending one element past
its row is accepted: its flat positions run into column 0 of the next row, which it silently
overwrites (in the last row, the apply fails with ``index_copy_``'s ``IndexError`` and the
write stays staged). A 1-D tensor accepts ``stage_write(i, 0, [a, b])`` and writes ``b`` into
element ``i + 1``.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor`` docstring: "a row past the
tensor, or ``start + len(x)`` past the row, is refused at staging time and nothing is
staged" and "a 1-D tensor's rows are single elements (``start`` 0, one value)";
``stage_write`` docstring, Raises: "IndexError: ... ``start + len(x)`` past the row";
docs/contracts.md, staged-write: "A write past the tensor's rows or past its row's end ...
raises `IndexError` or `ValueError` naming `index` or `start` ..., and nothing is staged".

Smallest input: ``t = StagedWriteTensor((2, 2), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2, 3]);
t.apply_write(); t.gpu``.
Reference: ``IndexError: start=0 with 3 values is outside a row of 2 elements`` (``.gpu`` zeros).
Bug: ``[[1, 2], [3, 0]]`` (row 1 written by a write to row 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _check(self, index: Any, start: Any, length: int) -> tuple[int, int]:
    for name, v in (("index", index), ("start", start)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an int, got {type(v).__name__}")
    index, start = int(index), int(start)
    if not 0 <= index < self.num_rows:
        raise IndexError(f"index={index} is outside the tensor's rows [0, {self.num_rows})")
    if start < 0 or start + length - 1 > self._row_len:  # BUG (r50 b15): last column compared with `>`
        raise IndexError(f"start={start} with {length} values is outside a row of {self._row_len} elements")
    return index, start


def target() -> Target:
    f = fork("b15")
    return make_target(
        "b15_staged_end_spills_row",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b15", methods={"StagedWriteTensor": {"_check": _check}}),
    )
