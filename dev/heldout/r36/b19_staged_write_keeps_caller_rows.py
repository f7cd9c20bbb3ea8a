"""``StagedWriteTensor.stage_write`` keeps the caller's list instead of copying its values.

What changed: ``stage_write(index, start, x)`` copied ``x``'s values into the tensor's own
list (``_staged_write_contents.extend(values)``, ``values = list(x)``). The change keeps a
list or ndarray ``x`` as it is and flattens the staged rows once, when the positions and
values are read at apply time: "``extend`` copies every block id of every request every
step; keep references and flatten once".

Why an engineer writes it: it is a plain speed-up of the per-step path (one flatten per
apply instead of one copy per write), and the block-id lists the scheduler passes are
not touched again before the apply in the engine's own loop.

Promise broken: contracts "staged-write" (after each apply ``.gpu`` equals the model of the
writes *as staged*, the last staged write winning) and the staging semantics of
docs/reference.md (contents are converted and sent staged: "the host lists may change right
after the call"). A caller that reuses or refills its list between ``stage_write`` and
``apply_write`` (a scratch list per request, an ndarray row of a host block table) gets the
later values written.

Smallest input: ``ids = [1, 2]; t = StagedWriteTensor((1, 2), torch.int32, "cpu");
t.stage_write(0, 0, ids); ids[0] = 9; t.apply_write()``: reference ``t.gpu == [[1, 2]]``; bug
``[[9, 2]]``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl.buffer_utils import StagedWriteTensor

from ._common import buffer_utils_ns, make_target


class ReferencingStagedWriteTensor(StagedWriteTensor):
    """One refactor of how staged contents are stored: rows by reference (``stage_write``), flattened when read (``staged_positions``)."""

    def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
        # BUG: a list or ndarray is kept by reference (was: values = list(x); contents.extend(values))
        try:
            values: Any = x if isinstance(x, (list, np.ndarray)) else list(x)
        except TypeError:
            raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
        if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
            raise TypeError("x must hold numbers (int or float)")
        index, start = self._check(index, start, len(values))
        if not len(values):
            return
        self._staged_write_indices.append(index)
        self._staged_write_starts.append(start)
        self._staged_write_contents.append(values)  # type: ignore[arg-type]  # one entry per write: the caller's row
        total = (self._staged_write_cu_lens[-1] if self._staged_write_cu_lens else 0) + len(values)
        self._staged_write_cu_lens.append(total)
        self._staged_write_max_len = max(self._staged_write_max_len, len(values))

    def staged_positions(self) -> tuple[np.ndarray, list[int | float]]:
        positions: list[np.ndarray] = []
        begin = 0
        for index, start, end in zip(
            self._staged_write_indices, self._staged_write_starts, self._staged_write_cu_lens, strict=True
        ):
            positions.append(index * self._row_len + start + np.arange(end - begin, dtype=np.int64))
            begin = end
        flat = np.concatenate(positions) if positions else np.zeros(0, dtype=np.int64)
        return flat, [v for row in self._staged_write_contents for v in row]  # type: ignore[union-attr]


def target() -> Target:
    return make_target(
        "b19_staged_write_keeps_caller_rows",
        buffer_utils=buffer_utils_ns(StagedWriteTensor=ReferencingStagedWriteTensor),
    )
