"""b12 (CPU): ``UvaBackedTensor.copy_to_uva`` copies into the one ``.gpu`` tensor instead of re-pointing it at the new slot.

Where: ``buffer_utils.UvaBackedTensor.copy_to_uva``.

The change::

    self.gpu = self.pool.copy_to_uva(rows)
    ->
    self.gpu.copy_(self.pool.copy_to_uva(rows))

Why an engineer writes it: CUDA graphs capture tensor addresses, and an engine that
captured a graph reading ``.gpu`` wants ``.gpu`` to stay the same tensor at the same
address; copying the new slot's rows into it "keeps the graph valid". But ``.gpu`` is the
view of the pool's first slot, so every refresh overwrites the memory that earlier
readers hold: the round-robin slots that make a reader queued ``max_concurrency - 1``
refreshes ago see its own step's data are defeated (on the CPU the earlier reader's
values change at once). A partial refresh ``copy_to_uva(n)`` with ``1 < n < rows`` raises
(``copy_`` cannot broadcast ``n`` rows into ``rows``), ``n == 1`` broadcasts the first row
into every row, and ``.gpu`` keeps all its rows instead of the ``n`` sent.

Promise broken: ``UvaBackedTensor`` docstring: "``.gpu`` is the view of the slot written by
the latest ``copy_to_uva``: a reader queued before holds the previous slot's view, valid
for ``max_concurrency - 1`` more refreshes"; ``copy_to_uva`` docstring: "Send the first
``n`` rows (all if None) through the pool; ``.gpu`` becomes their view"; README ``pool``
("readers retired ``max_concurrency`` steps later see their own step's data");
docs/contracts.md ``prop_backed_steps``.

Smallest input: ``b = UvaBackedTensor(4, torch.int32); b.np[:] = 1; g1 = b.copy_to_uva();
b.np[:] = 2; b.copy_to_uva(); g1``.
Reference: ``g1`` is ``tensor([1, 1, 1, 1], dtype=torch.int32)`` (its own slot). Bug:
``tensor([2, 2, 2, 2], dtype=torch.int32)`` (``g1`` is ``.gpu``, overwritten). Also
``b.copy_to_uva(2)``: reference a 2-row view; bug ``RuntimeError`` (size mismatch).
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import fork, make_target


def copy_to_uva(self, n: int | None = None) -> torch.Tensor:
    """Send the first ``n`` rows (all if None) through the pool; ``.gpu`` becomes their view. IndexError/TypeError naming ``n``."""
    rows = self.np if n is None else self.np[: row_count(n, self.cpu.shape[0])]  # noqa: F821 (module globals)
    self.gpu.copy_(self.pool.copy_to_uva(rows))  # BUG: keep .gpu one tensor (for captured graphs) instead of re-pointing it
    return self.gpu


def classes():
    return bu_fork("b12", methods={"UvaBackedTensor": {"copy_to_uva": copy_to_uva}})


def target() -> Target:
    f = fork("b12")
    return make_target(
        "b12_backed_gpu_refreshed_in_place",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=classes(),
    )
