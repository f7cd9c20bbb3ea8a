"""``StagedWriteTensor.stage_write`` returns early for an empty ``x`` before the bounds check.

What changed: ``stage_write(index, start, x)`` validated ``index`` and ``start`` for every
call and then returned if ``x`` was empty. The change moves the empty test first: "a request
with no new blocks stages nothing; skip the checks".

Why an engineer writes it: most decode-step calls of the block-table writer are empty,
and the early return looks like a free win (nothing is staged either way).

Promise broken: contracts "staged-write" ("A write past the tensor's rows or past its row's
end, or with a negative index or start, raises IndexError or ValueError naming ``index`` or
``start`` (never an assert: vLLM asserts only ``index >= 0`` and ``start >= 0``)") and
docs/reference.md: an empty write at a row the tensor does not have, or at a negative
index, or with a ``start`` that is not an int, is accepted silently: a request index that
went out of range (a resized batch) is not reported on the steps where it happens to
stage nothing, even by vLLM's own assert.

Smallest input: ``t = StagedWriteTensor(2, torch.int32, "cpu"); t.stage_write(-1, 0, [])``:
reference ``IndexError: index=-1 is outside the tensor's rows [0, 2)``; bug returns None.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl.buffer_utils import StagedWriteTensor

from ._common import buffer_utils_ns, make_target


class EmptyFirstStagedWriteTensor(StagedWriteTensor):
    def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
        try:
            values = list(x)
        except TypeError:
            raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
        if not values:  # BUG: moved before the index/start check (was: after it)
            return
        if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
            raise TypeError("x must hold numbers (int or float)")
        index, start = self._check(index, start, len(values))
        self._staged_write_indices.append(index)
        self._staged_write_starts.append(start)
        self._staged_write_contents.extend(values)
        self._staged_write_cu_lens.append(len(self._staged_write_contents))
        self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    return make_target(
        "b24_staged_write_empty_skips_check",
        buffer_utils=buffer_utils_ns(StagedWriteTensor=EmptyFirstStagedWriteTensor),
    )
