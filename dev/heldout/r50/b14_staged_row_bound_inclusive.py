"""b14 (CPU): ``StagedWriteTensor``'s row bound inclusive (``index <= num_rows``): a write to the row just past the tensor is staged, and the apply fails.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor._check`` (``stage_write`` and
``stage_write_elem`` call it).

Change (one operator)::

    if not 0 <= index < self.num_rows:    # reference
    if not 0 <= index <= self.num_rows:   # bug: an off-by-one in the row bound

``stage_write(num_rows, ...)`` is accepted. Its flat positions start at ``num_rows *
row_len``, past ``.gpu``: the next ``apply_write`` (or fused apply) raises ``IndexError``
from ``index_copy_`` (naming no argument), and since a failed apply keeps its writes staged,
every later apply of that tensor fails too until ``clear_staged_writes()``: the good writes
staged beside it are stuck. Rows inside the tensor behave as before.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor`` docstring: "a row past the
tensor, or ``start + len(x)`` past the row, is refused at staging time and nothing is staged"
and ``stage_write`` docstring, Raises: "IndexError: ``index`` past the rows"; docs/reference.md:
"bounds are exceptions naming the argument, raised before anything is staged or written:
... `stage_write` past the rows or the row's end or negative (`IndexError`)"; docs/contracts.md,
staged-write: "A write past the tensor's rows ... raises `IndexError` or `ValueError` naming
`index` or `start` ..., and nothing is staged; so does a `stage_write_elem` past the rows".

Smallest input: ``t = StagedWriteTensor((2, 4), torch.int32, 'cpu'); t.stage_write(2, 0, [1])``.
Reference: ``IndexError: index=2 is outside the tensor's rows [0, 2)``. Bug: staged; then
``t.apply_write()`` raises ``IndexError: index_copy_(): index 8 is out of bounds for dimension 0 with size 8``.
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
    if not 0 <= index <= self.num_rows:  # BUG (r50 b14): inclusive upper bound
        raise IndexError(f"index={index} is outside the tensor's rows [0, {self.num_rows})")
    if start < 0 or start + length > self._row_len:
        raise IndexError(f"start={start} with {length} values is outside a row of {self._row_len} elements")
    return index, start


def target() -> Target:
    f = fork("b14")
    return make_target(
        "b14_staged_row_bound_inclusive",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b14", methods={"StagedWriteTensor": {"_check": _check}}),
    )
