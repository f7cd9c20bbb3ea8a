"""b09 (CPU): ``UvaBackedTensor.copy_to_uva`` writes only the rows that changed since the last refresh, into the next slot of the ring.

Where: ``h2d_impl/buffer_utils.py::UvaBackedTensor.copy_to_uva``.

Change: an optimisation ("sampling parameters change for a few requests a step; copy the dirty
rows only"): the rows are compared with what the last refresh sent, and only those that differ
are written into the next slot::

    self.gpu = self.pool.copy_to_uva(rows)                                       # reference

    last = self._sent  (what the last refresh sent; zeros from construction)     # bug
    buf = <the pool's next slot>
    dirty = (rows != last[:k]).reshape(k, -1).any(axis=1)
    buf.np[:k][dirty] = rows[dirty]
    last[:k] = rows
    self.gpu = buf.uva(k)

The comparison is with the *last* refresh, but the write goes to the *next* slot of the ring,
which holds what was sent ``max_concurrency`` refreshes ago. A row that changed at the last
refresh and not since keeps, in the new slot, its value of ``max_concurrency`` refreshes ago. With
depth 1 (one slot) it would be right; with the default depth 2 the view returned mixes this
step's changed rows with stale ones: plausible values, the wrong step's.

Promise broken: h2d_impl/buffer_utils.py ``UvaBackedTensor.copy_to_uva``: "Send the first ``n``
rows (all if None) through the pool; ``.gpu`` becomes their view"; docs/contracts.md, pool:
"``copy_to_uva(n)`` ... must return ``.gpu`` itself, holding the first ``n`` rows of ``.np`` as they
were at the call".

Smallest input: ``t = UvaBackedTensor(2, torch.int32); t.np[:] = [1, 1]; t.copy_to_uva(); t.np[0] = 5; t.copy_to_uva()``.
Reference: ``[5, 1]``. Bug: ``[5, 0]`` (row 1 as sent at construction, two refreshes ago).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: row_count)


def copy_to_uva(self: Any, n: int | None = None) -> torch.Tensor:
    rows = self.np if n is None else self.np[: row_count(n, self.cpu.shape[0])]
    k = rows.shape[0]
    last = self.__dict__.get("_sent")
    if last is None:
        last = self._sent = np.zeros_like(self.np)  # construction sent zeros
    pool = self.pool
    nxt = (pool._curr + 1) % pool.max_concurrency
    buf = pool._uva_bufs[nxt]
    dirty = (rows != last[:k]).reshape(k, -1).any(axis=1)  # BUG (r54 b09): compared with the last refresh,
    buf.np[:k][dirty] = rows[dirty]  # written into the next slot, which holds an older one
    last[:k] = rows
    pool._curr = nxt
    self.gpu = buf.uva(k)
    return self.gpu


def target() -> Target:
    f = fork("b09")
    return make_target(
        "b09_backed_changed_rows_only",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b09", methods={"UvaBackedTensor": {"copy_to_uva": copy_to_uva}}),
    )
