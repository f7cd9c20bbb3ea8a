"""b17 (CPU): ``UvaBackedTensor.copy_to_uva()`` (``n=None``) sends as many rows as ``.gpu`` has now.

Where: ``UvaBackedTensor.copy_to_uva``.

Change: ``rows = self.np if n is None else self.np[: row_count(n, ...)]`` became
``n = self.gpu.shape[0] if n is None else n`` followed by the sliced branch only
("None: refresh the rows ``.gpu`` shows").

Why plausible: ``.gpu`` starts with every row (``__init__`` sends the whole ``.np``), so "the
rows of ``.gpu``" and "all rows" agree until a caller refreshes a prefix; a one-branch
rewrite reads as equivalent. After ``copy_to_uva(k)`` the "source of truth" ``.np`` and the
view disagree on what "all" is, and ``None`` sends only ``k`` rows from then on.

Promise broken: ``UvaBackedTensor.copy_to_uva``: "Send the first ``n`` rows (all if None)
through the pool; ``.gpu`` becomes their view"; docs/contracts.md (pool): "each of 2-8
refreshes writes new values into ``.np``, then ``copy_to_uva(n)`` (``n`` drawn in ``[0, rows]`` or
``None``) must return ``.gpu`` itself, holding the first ``n`` rows of ``.np``".

Smallest input: ``t = UvaBackedTensor(2, torch.int32); t.np[:] = [1, 2]; t.copy_to_uva(1);
t.copy_to_uva()``.
Reference: [1, 2] (shape (2,)).
Bug: [1] (shape (1,)); after ``copy_to_uva(0)``, ``copy_to_uva()`` sends no rows at all.
"""

from __future__ import annotations

import torch

from ._bu import bu_fork, bu_target

TAG, SHORT = "b17", "b17_backed_none_sends_gpu_rows"


def copy_to_uva(self, n: int | None = None) -> torch.Tensor:
    """Send the first ``n`` rows (all if None) through the pool; ``.gpu`` becomes their view. IndexError/TypeError naming ``n``."""
    n = self.gpu.shape[0] if n is None else n  # BUG: None means ".gpu's rows" (was: every row of .np)
    rows = self.np[: row_count(n, self.cpu.shape[0])]  # noqa: F821
    self.gpu = self.pool.copy_to_uva(rows)
    return self.gpu


def classes():
    return bu_fork(TAG, methods={"UvaBackedTensor": {"copy_to_uva": copy_to_uva}})


def target():
    return bu_target(TAG, SHORT, classes())
