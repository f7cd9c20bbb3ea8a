"""UvaBackedTensor.copy_to_uva(n) slices ``self.np[:n]`` as vLLM does, without the row-count check.

What changed: ``self.np[: row_count(n, self.cpu.shape[0])]`` became vLLM 0.33.0's own
``self.np[:n]``.

Why an engineer would write it: porting vLLM's body verbatim ("the slice already bounds
n"); Python slicing never raises, so every call "works".

Promise broken (contract uva; reference.md "bounds are exceptions naming the argument ...
``UvaBackedTensor.copy_to_uva(n)`` outside ``[0, rows]`` (IndexError, TypeError for a
non-int)"). With the bug ``n = rows + 1`` sends every row, ``n = -1`` all but the last,
and a bool slices as 0 or 1.

Smallest input: ``UvaBackedTensor(1, torch.int32).copy_to_uva(2)``: reference IndexError
("n=2 is outside [0, 1]"); bug: returns ``[0]`` (one row). ``copy_to_uva(-1)``:
reference IndexError, bug an empty view.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _copy_to_uva(self, n=None):  # type: ignore[no-untyped-def]
    rows = self.np if n is None else self.np[:n]  # BUG: vLLM's slice: clamps n > rows, drops rows for n < 0
    self.gpu = self.pool.copy_to_uva(rows)
    return self.gpu


class UvaBackedTensor(REF.UvaBackedTensor):
    copy_to_uva = rebind(_copy_to_uva)


def target() -> Target:
    return make_target("backed_rows_sliced_unchecked", UvaBackedTensor=UvaBackedTensor)
