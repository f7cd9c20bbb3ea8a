"""b18 (CPU): ``UvaBackedTensor.copy_to_uva(0)`` returns the previous refresh's view (stale rows) instead of an empty one.

Where: h2d_impl/buffer_utils.py, ``UvaBackedTensor.copy_to_uva``.
Change: a shortcut added at the top: ``if n == 0: return self.gpu`` ("nothing to send").
Why plausible: idle engine steps refresh with ``num_reqs == 0``; skipping the pool (no slot taken,
    no copy) looks free. But ``.gpu`` is then still the last refresh's view of *its* rows, and
    ``n == 0`` is also true for ``False`` (and a 0-d tensor), which ``row_count`` refuses.
Promise broken: UvaBackedTensor's docstring: "Send the first ``n`` rows (all if None) through the
    pool; ``.gpu`` becomes their view. IndexError/TypeError naming ``n``"; contracts.md pool:
    "``copy_to_uva(n)`` (``n`` drawn in ``[0, rows]`` or ``None``) must return ``.gpu`` itself,
    holding the first ``n`` rows of ``.np`` as they were at the call"; "a bool raises naming ``n``".
Smallest input:
    b = UvaBackedTensor(4, torch.int32); b.np[:] = [1, 2, 3, 4]; b.copy_to_uva(2); b.copy_to_uva(0).shape
Reference: ``torch.Size([0])``. Bug: ``torch.Size([2])`` (holding ``[1, 2]``); and
    ``b.copy_to_uva(False)`` returns that view where the reference raises ``TypeError``.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target


def copy_to_uva(self, n: int | None = None) -> torch.Tensor:
    if n == 0:  # BUG: "nothing to send": keeps the previous view (and lets False through)
        return self.gpu
    rows = self.np if n is None else self.np[: row_count(n, self.cpu.shape[0])]  # noqa: F821
    self.gpu = self.pool.copy_to_uva(rows)
    return self.gpu


def classes():
    return bu_fork("b18", methods={"UvaBackedTensor": {"copy_to_uva": copy_to_uva}})


def target() -> Target:
    return bu_target("b18", "b18_backed_zero_rows_stale", classes())
