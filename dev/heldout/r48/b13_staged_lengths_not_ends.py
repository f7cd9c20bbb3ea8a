"""b13 (CPU): ``stage_write`` records each write's own length where the cumulative end offset (``cu_lens``) is expected.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write``.

Change (one line)::

    self._staged_write_cu_lens.append(len(self._staged_write_contents))   # reference: running total
    self._staged_write_cu_lens.append(len(values))                        # bug: "cu_lens = the lengths"

A single write per apply still lands. With several, ``staged_positions`` slices the
contents by these "ends": the first write lands whole, a later write no longer than the one
before it yields an empty range and is silently dropped, a longer one keeps only its first
(length - previous length) elements, and from the third write on those are filled with
earlier writes' values (``[1]``, ``[2, 3]``, ``[4, 5, 6]`` into rows 0-2 give ``1``, ``2``, ``3``
in column 0); ``apply_write`` then clears everything.

Promise broken: docs/contracts.md, staged-write: "After each apply `.gpu` equals a numpy
model bit for bit: writes applied in staging order, the last staged write of an element
winning"; h2d_impl/buffer_utils.py ``StagedWriteTensor.apply_write`` docstring: "Write every
staged write into ``.gpu`` (current stream, staging order) and clear them".

Smallest input: ``t = StagedWriteTensor((2, 4), torch.int32, 'cpu'); t.stage_write(0, 0, [1, 2]);
t.stage_write(1, 0, [3, 4]); t.apply_write(); t.gpu``.
Reference: ``[[1, 2, 0, 0], [3, 4, 0, 0]]``. Bug: ``[[1, 2, 0, 0], [0, 0, 0, 0]]``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    """Stage ``x`` into row ``index`` from column ``start``; an empty ``x`` stages nothing.

    Raises:
        TypeError: ``index`` or ``start`` not an int, or ``x`` not an iterable of numbers.
        IndexError: ``index`` past the rows, or ``start + len(x)`` past the row.
    """
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
        raise TypeError("x must hold numbers (int or float)")
    index, start = self._check(index, start, len(values))
    if not values:
        return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(values))  # BUG (r48 b13): the write's length, not the running total
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b13")
    return make_target(
        "b13_staged_lengths_not_ends",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b13", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
