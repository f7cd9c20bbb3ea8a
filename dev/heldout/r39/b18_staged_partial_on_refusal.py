"""b18 (CPU-visible, buffer_utils.py ``StagedWriteTensor.stage_write``): the scan of the values' types moved below the bookkeeping of index and start: a write refused with TypeError leaves its row and start staged without contents, and the next ``apply_write`` fails (or misplaces later writes).

What changed: ``if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer,
np.floating)) for v in values): raise TypeError(...)`` moved from before the bounds check
to just before ``self._staged_write_contents.extend(values)``, i.e. after
``self._staged_write_indices.append(index)`` and ``self._staged_write_starts.append(start)``.

Why an engineer would write it: the type scan is the one Python loop over the values;
moving it after the cheap bounds check makes out-of-bounds writes fail fast, and putting
it "right where the values are used" reads naturally. The refused call no longer leaves
the object as it found it.

Promise broken: ``stage_write`` docstring, Raises: "TypeError: ... ``x`` not an iterable
of numbers"; ``StagedWriteTensor`` docstring: "refused at staging time and nothing is
staged"; docs/reference.md, Model Runner V2: "bounds are exceptions naming the argument,
raised before anything is staged or written"; docs/contracts.md staged-write: "... raises
... and nothing is staged".

Smallest input: ``t = StagedWriteTensor(4, torch.int32, 'cpu')``; ``t.stage_write(0, 0,
[True])`` (TypeError, caught); ``t.stage_write_elem(1, 5); t.apply_write(); t.gpu``.

Reference result: ``TypeError`` for the bool, then ``[0, 5, 0, 0]``.
Bug result: ``TypeError`` for the bool, then ``apply_write`` raises ``ValueError: zip()
argument 3 is shorter than arguments 1-2`` (the valid write is never applied until
``clear_staged_writes()``).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import make_target


def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    """Stage ``x`` into row ``index`` from column ``start``; an empty ``x`` stages nothing."""
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    index, start = self._check(index, start, len(values))
    if not values:
        return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    # BUG: the type scan was the first check (before _check); moved down "to where the values are used",
    # after the row and start were already appended
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
        raise TypeError("x must hold numbers (int or float)")
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    ns = bu_fork("b18", methods={"StagedWriteTensor": {"stage_write": stage_write}})
    return make_target("b18_staged_partial_on_refusal", buffer_utils=ns)
