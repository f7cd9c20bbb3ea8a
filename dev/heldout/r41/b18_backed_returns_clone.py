"""b18 (CPU): ``UvaBackedTensor.copy_to_uva`` returns a defensive clone of ``.gpu`` instead of ``.gpu``.

Where: ``UvaBackedTensor.copy_to_uva``.

Change: ``return self.gpu`` became ``return self.gpu.clone()`` (``.gpu`` itself is still
re-pointed at the slot's view).

Why plausible: "callers must not scribble on a pool slot: hand them a copy". The values are
right and ``.gpu`` is right; but the returned tensor is neither ``.gpu`` nor memory of the
slot: a caller (or a CUDA graph) that keeps the return value and then refills ``.np`` and
refreshes keeps reading the copy; on CUDA the clone is also a device copy of every
refresh, the traffic the UVA view exists to avoid.

Promise broken: docs/contracts.md (pool): "``copy_to_uva(n)`` ... must return ``.gpu`` itself,
holding the first ``n`` rows of ``.np``"; ``UvaBackedTensor``: "``.gpu``, a pool slot's view
refreshed by ``copy_to_uva(n)``"; "Send the first ``n`` rows ... through the pool; ``.gpu``
becomes their view".

Smallest input: ``t = UvaBackedTensor(2, torch.int32); r = t.copy_to_uva(); r is t.gpu``.
Reference: ``True``.
Bug: ``False`` (``r`` equals ``t.gpu`` in value, shares no memory with it).
"""

from __future__ import annotations

import torch

from ._bu import bu_fork, bu_target

TAG, SHORT = "b18", "b18_backed_returns_clone"


def copy_to_uva(self, n: int | None = None) -> torch.Tensor:
    """Send the first ``n`` rows (all if None) through the pool; ``.gpu`` becomes their view. IndexError/TypeError naming ``n``."""
    rows = self.np if n is None else self.np[: row_count(n, self.cpu.shape[0])]  # noqa: F821
    self.gpu = self.pool.copy_to_uva(rows)
    return self.gpu.clone()  # BUG: was `return self.gpu`


def classes():
    return bu_fork(TAG, methods={"UvaBackedTensor": {"copy_to_uva": copy_to_uva}})


def target():
    return bu_target(TAG, SHORT, classes())
