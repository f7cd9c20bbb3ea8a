"""b21 (CPU-visible, buffer_utils.py ``StagedWriteTensor.stage_write``): the validated ``(index, start)`` are discarded and the caller's objects staged.

What changed: ``index, start = self._check(index, start, len(values))`` became
``self._check(index, start, len(values))``: the check still runs, but the staged index and
start are the caller's objects, not the ints ``_check`` returns.

Why an engineer would write it: "``_check`` is a validator; its return value is redundant".
It also normalises numpy integers to Python ints. A ``numpy.uint64`` row index (a valid
index: ``_check`` accepts any ``np.integer``) then reaches ``staged_positions``, where
``np.uint64 * int + int + np.arange(..., dtype=np.int64)`` promotes to **float64**; the float
positions reach ``index_copy_``, which refuses a non-long index.

Promise broken: ``stage_write(index, start, x)`` takes integer ``index``/``start`` ("TypeError:
``index`` or ``start`` not an int" is the only type refusal; numpy integers are ints there)
and ``apply_write()`` writes every staged write (docstrings; contracts.md staged-write). With
the bug a uint64 index makes every later ``apply_write`` raise ``RuntimeError`` (not even one
of the documented ``ValueError``/``TypeError``), and the write stays staged forever.

Smallest input: ``t = StagedWriteTensor(4, torch.int32, "cpu"); t.stage_write(np.uint64(1), 0, [7]);
t.apply_write(); t.gpu``.
Reference: ``tensor([0, 7, 0, 0])``. Bug: ``RuntimeError: index_copy_(): Expected a long
tensor for index, but got Double``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer_utils as _bu

from ._common import buffer_utils_ns, fork, make_target


class BuggyStagedWriteTensor(_bu.StagedWriteTensor):
    def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
        """Stage ``x`` into row ``index`` from column ``start``; an empty ``x`` stages nothing."""
        try:
            values = list(x)
        except TypeError:
            raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
        if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
            raise TypeError("x must hold numbers (int or float)")
        self._check(index, start, len(values))  # BUG: the validated Python ints are dropped; numpy scalars get staged
        if not values:
            return
        self._staged_write_indices.append(index)
        self._staged_write_starts.append(start)
        self._staged_write_contents.extend(values)
        self._staged_write_cu_lens.append(len(self._staged_write_contents))
        self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b21")
    return make_target(
        "b21_staged_unvalidated_index_kept",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(StagedWriteTensor=BuggyStagedWriteTensor),
    )
