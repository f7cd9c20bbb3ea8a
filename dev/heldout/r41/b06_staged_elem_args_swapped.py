"""b06 (CPU): ``stage_write_elem`` passes its row as the start: ``stage_write(0, index, [x])``.

Where: ``StagedWriteTensor.stage_write_elem``.

Change: ``self.stage_write(index, 0, [x])`` became ``self.stage_write(0, index, [x])``.

Why plausible: ``stage_write(index, start, x)`` takes two ints in a row; an engineer
rewriting the one-liner (or reading "element ``index``" as a column) swaps them. For the
common case of element 0 nothing changes.

Promise broken: ``stage_write_elem``: "Stage the one value ``x`` into row ``index``, column 0";
docs/reference.md: "a 1-D ``StagedWriteTensor``'s rows being single elements"; docs/contracts.md
(staged-write): "``stage_write_elem`` ... After each apply ``.gpu`` equals a numpy model".

Smallest input: ``t = StagedWriteTensor((2, 2), torch.int32, "cpu"); t.stage_write_elem(1, 5);
t.apply_write()``.
Reference: ``.gpu`` = [[0, 0], [5, 0]].
Bug: ``.gpu`` = [[0, 5], [0, 0]] (row 0, column 1). On a 1-D tensor ``stage_write_elem(1, 5)``
raises ``IndexError`` ("start=1 with 1 values is outside a row of 1 elements") for a valid call.
"""

from __future__ import annotations

from ._bu import bu_fork, bu_target

TAG, SHORT = "b06", "b06_staged_elem_args_swapped"


def stage_write_elem(self, index: int, x: int) -> None:
    """Stage the one value ``x`` into row ``index``, column 0. TypeError/IndexError naming the argument."""
    self.stage_write(0, index, [x])  # BUG: was stage_write(index, 0, [x])


def classes():
    return bu_fork(TAG, methods={"StagedWriteTensor": {"stage_write_elem": stage_write_elem}})


def target():
    return bu_target(TAG, SHORT, classes())
