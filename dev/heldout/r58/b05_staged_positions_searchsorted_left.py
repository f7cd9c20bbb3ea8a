"""b05 (CPU): ``staged_positions`` vectorised with ``np.searchsorted(cu_lens, elements, side="left")``.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.staged_positions`` (every ``apply_write`` and fused apply).

Change: the per-write Python loop (one ``np.arange`` per write: thousands per step for a long prefill's block
table rows) replaced by one vectorised pass that finds each staged element's write in the running ends::

    for index, start, end in zip(indices, starts, cu_lens, strict=True):            # reference
        positions.append(index * self._row_len + start + np.arange(end - begin, dtype=np.int64))
        begin = end

    ends = np.asarray(self._staged_write_cu_lens, dtype=np.int64)                  # bug
    elements = np.arange(ends[-1], dtype=np.int64)
    write = np.searchsorted(ends, elements, side="left")
    begins = np.concatenate(([0], ends[:-1]))
    bases = indices * self._row_len + starts
    flat = bases[write] + (elements - begins[write])

Element ``e`` belongs to the first write whose end is *greater* than ``e`` (``side="right"``); ``side="left"``
finds the first end greater than *or equal to* it, so the first element of every write after the first
(``e == ends[k]``) is charged to the write before it, at that write's next column. It lands one past the
previous write (in its row, or at the start of the next row), and the element's own position is never written.
A single write, and 1-D tensors whose element writes go to consecutive rows, come out right.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "``stage_write(index, start, x)`` stages ``x`` into row
``index`` from column ``start``"; ``staged_positions``: "The staged writes as flat element positions of ``.gpu``";
docs/contracts.md, staged-write: "``.gpu`` equals a numpy model bit for bit".

Smallest input: ``t = StagedWriteTensor((2, 2), torch.int32, 'cpu'); t.stage_write_elem(0, 5);
t.stage_write_elem(1, 7); t.apply_write(); t.gpu``.
Reference: ``[[5, 0], [7, 0]]``. Bug: ``[[5, 7], [0, 0]]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def staged_positions(self: Any) -> tuple[np.ndarray, list[int | float]]:
    """The staged writes as flat element positions of ``.gpu`` and their values, in staging order."""
    if not self._staged_write_cu_lens:
        return np.zeros(0, dtype=np.int64), list(self._staged_write_contents)
    ends = np.asarray(self._staged_write_cu_lens, dtype=np.int64)
    elements = np.arange(ends[-1], dtype=np.int64)
    write = np.searchsorted(ends, elements, side="left")  # BUG (r58 b05): "right": an element at an end is the next write's
    begins = np.concatenate((np.zeros(1, dtype=np.int64), ends[:-1]))
    bases = (
        np.asarray(self._staged_write_indices, dtype=np.int64) * self._row_len
        + np.asarray(self._staged_write_starts, dtype=np.int64)
    )
    flat = bases[write] + (elements - begins[write])
    return flat, list(self._staged_write_contents)


def target() -> Target:
    f = fork("b05")
    return make_target(
        "b05_staged_positions_searchsorted_left",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05", methods={"StagedWriteTensor": {"staged_positions": staged_positions}}),
    )
