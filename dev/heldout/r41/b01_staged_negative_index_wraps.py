"""b01 (CPU): negative row indices wrap Python-style in ``StagedWriteTensor._check``.

Where: ``StagedWriteTensor._check`` (used by ``stage_write`` and ``stage_write_elem``).

Change: after the ints are taken, one line is added before the bounds test::

    index, start = int(index), int(start)
    if index < 0:
        index += self.num_rows          # added: "rows index like tensors: -1 is the last row"

Why plausible: engines address "the last request's row" as ``-1`` on tensors all the
time (``block_table[-1]``), and an engineer making ``stage_write`` feel like tensor
indexing normalises negative rows once, keeping the range check after it.

Promise broken: ``StagedWriteTensor`` docstring: "a row past the tensor ... is refused at
staging time and nothing is staged"; docs/contracts.md (staged-write): "A write ... with a
negative index or start, raises ``IndexError`` or ``ValueError`` naming ``index`` or
``start`` ... and nothing is staged"; docs/reference.md: "``stage_write`` past the rows or
the row's end or negative (``IndexError``)".

Smallest input: ``t = StagedWriteTensor(2, torch.int32, "cpu"); t.stage_write(-1, 0, [7]);
t.apply_write()``.
Reference: ``IndexError: index=-1 is outside the tensor's rows [0, 2)``; ``.gpu`` stays [0, 0].
Bug: nothing raised; the write is staged into row 1 and ``.gpu`` becomes [0, 7].
(``-3`` on the 2-row tensor is still refused, naming ``index=-1``.)
"""

from __future__ import annotations

from typing import Any

from ._bu import bu_fork, bu_target

TAG, SHORT = "b01", "b01_staged_negative_index_wraps"


def _check(self, index: Any, start: Any, length: int) -> tuple[int, int]:
    for name, v in (("index", index), ("start", start)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):  # noqa: F821 (bu's np)
            raise TypeError(f"{name} must be an int, got {type(v).__name__}")
    index, start = int(index), int(start)
    if index < 0:
        index += self.num_rows  # BUG: Python-style negative rows
    if not 0 <= index < self.num_rows:
        raise IndexError(f"index={index} is outside the tensor's rows [0, {self.num_rows})")
    if start < 0 or start + length > self._row_len:
        raise IndexError(f"start={start} with {length} values is outside a row of {self._row_len} elements")
    return index, start


def classes():
    return bu_fork(TAG, methods={"StagedWriteTensor": {"_check": _check}})


def target():
    return bu_target(TAG, SHORT, classes())
