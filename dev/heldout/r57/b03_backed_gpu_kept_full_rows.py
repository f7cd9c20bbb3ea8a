"""b03 (CPU): a partial refresh of a ``UvaBackedTensor`` leaves ``.gpu`` the view of every row of the new slot.

Where: ``h2d_impl/buffer_utils.py::UvaBackedTensor.copy_to_uva`` (``n`` given).

Change: a shape-stability change ("readers index ``.gpu`` by request slot (``temperature.gpu[idx_mapping]``)
and CUDA graphs capture its shape: keep ``.gpu`` the view of every row; ``n`` only bounds what is sent")::

    self.gpu = self.pool.copy_to_uva(rows)                                          # reference

    self.pool.copy_to_uva(rows)                                                     # bug
    self.gpu = self.pool._uva_bufs[self.pool._curr].uva()

The first ``n`` rows are this refresh's. The rows past ``n`` are whatever the slot the ring handed out held:
not ``.np``'s rows and not the previous refresh's, but the refresh of ``max_concurrency`` steps ago (zeros
at first). The engineer's mental model (the rows past ``n`` did not change, so they still hold what was sent)
holds for one slot, not for a ring of them. ``copy_to_uva()`` (no ``n``) is unchanged.

Promise broken: h2d_impl/buffer_utils.py ``UvaBackedTensor.copy_to_uva``: "Send the first ``n`` rows (all if None)
through the pool; ``.gpu`` becomes their view"; docs/contracts.md, pool (``prop_backed_steps``): "``copy_to_uva(n)``
... must return ``.gpu`` itself, holding the first ``n`` rows of ``.np`` as they were at the call".

Smallest input: ``t = UvaBackedTensor(2, torch.int32); t.np[:] = 1; t.copy_to_uva(); t.np[:] = 2; t.copy_to_uva(1)``.
Reference: ``tensor([2], dtype=torch.int32)`` (``.gpu`` is that view). Bug: ``tensor([2, 0], dtype=torch.int32)``
(row 1 is the initial slot's zero; ``.np`` holds 2 there and the last full refresh sent 1).
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: row_count)


def copy_to_uva(self: Any, n: int | None = None) -> torch.Tensor:
    """Send the first ``n`` rows (all if None) through the pool; ``.gpu`` becomes their view."""
    rows = self.np if n is None else self.np[: row_count(n, self.cpu.shape[0])]
    self.pool.copy_to_uva(rows)
    # .gpu keeps every row: readers index it by request slot and CUDA graphs capture its shape
    self.gpu = self.pool._uva_bufs[self.pool._curr].uva()  # BUG (r57 b03): the slot's rows past n are stale
    return self.gpu


def target() -> Target:
    f = fork("b03")
    return make_target(
        "b03_backed_gpu_kept_full_rows",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03", methods={"UvaBackedTensor": {"copy_to_uva": copy_to_uva}}),
    )
