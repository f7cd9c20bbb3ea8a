"""StagedWriteTensor._check bounds ``start`` alone, not ``start + len(x)``: a write runs off its row.

What changed: ``if start < 0 or start + length > self._row_len`` became
``if not 0 <= start < self._row_len`` ("start must be a column of the row").

Why an engineer would write it: it mirrors the ``index`` check on the line above
(``0 <= index < num_rows``), and every write that starts inside the row looks valid; the
length of ``x`` is forgotten.

Promise broken (contract staged-write; StagedWriteTensor's docstring): ``start + len(x)``
past the row is refused at staging time with IndexError and nothing is staged. With the
bug such a write is staged and ``apply_write`` spills its tail into the next row (flat
positions), or fails on the last row. (Also: an empty write at ``start == row length``,
valid in the reference, is now refused.)

Smallest input: ``t = StagedWriteTensor((2, 1), torch.int32, "cpu");
t.stage_write(0, 0, [5, 6])``: reference IndexError ("start=0 with 2 values is outside a
row of 1 elements"); bug: staged, and ``apply_write()`` leaves ``.gpu == [[5], [6]]``
(row 1 written by a write to row 0).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _check(self, index, start, length):  # type: ignore[no-untyped-def]
    for name, v in (("index", index), ("start", start)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):  # noqa: F821
            raise TypeError(f"{name} must be an int, got {type(v).__name__}")
    index, start = int(index), int(start)
    if not 0 <= index < self.num_rows:
        raise IndexError(f"index={index} is outside the tensor's rows [0, {self.num_rows})")
    if not 0 <= start < self._row_len:  # BUG: the write's end, start + length, is never checked
        raise IndexError(f"start={start} with {length} values is outside a row of {self._row_len} elements")
    return index, start


class StagedWriteTensor(REF.StagedWriteTensor):
    _check = rebind(_check)


def target() -> Target:
    return make_target("staged_end_of_row_unchecked", StagedWriteTensor=StagedWriteTensor)
