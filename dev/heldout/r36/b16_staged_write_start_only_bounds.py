"""``StagedWriteTensor`` bounds-checks ``start`` but not ``start + len(x)``.

What changed: ``StagedWriteTensor._check(index, start, length)`` refused a write unless
``0 <= start`` and ``start + length <= row_len``. The change tests ``0 <= start < row_len``:
"vLLM asserts only ``start >= 0``; checking that the write *begins* inside the row is the
missing half".

Why an engineer writes it: it completes vLLM's assert in the obvious way (a lower and an
upper bound on ``start``) and never looks at the length of ``x``.

Promise broken: contracts "staged-write" ("a write ... past its row's end ... raises
IndexError or ValueError naming ``index`` or ``start`` ..., and nothing is staged") and
docs/reference.md ("``stage_write`` past the rows or the row's end or negative
(``IndexError``), raised before anything is staged or written"). A write that starts
inside a row and runs past its end is staged and spills into the next row (an empty write
at ``start == row_len``, valid, is refused instead).

Smallest input: ``t = StagedWriteTensor((2, 3), torch.int32, "cpu"); t.stage_write(0, 2,
[7, 8]); t.apply_write()``: reference ``IndexError`` at ``stage_write``, ``t.gpu`` all zeros;
bug ``t.gpu == [[0, 0, 7], [8, 0, 0]]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl.buffer_utils import StagedWriteTensor

from ._common import buffer_utils_ns, make_target


class StartOnlyStagedWriteTensor(StagedWriteTensor):
    def _check(self, index: Any, start: Any, length: int) -> tuple[int, int]:
        for name, v in (("index", index), ("start", start)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"{name} must be an int, got {type(v).__name__}")
        index, start = int(index), int(start)
        if not 0 <= index < self.num_rows:
            raise IndexError(f"index={index} is outside the tensor's rows [0, {self.num_rows})")
        if not 0 <= start < self._row_len:  # BUG: was `start < 0 or start + length > self._row_len`
            raise IndexError(f"start={start} is outside a row of {self._row_len} elements")
        return index, start


def target() -> Target:
    return make_target(
        "b16_staged_write_start_only_bounds",
        buffer_utils=buffer_utils_ns(StagedWriteTensor=StartOnlyStagedWriteTensor),
    )
