"""b11 (CPU): ``UvaBackedTensor.copy_to_uva(n)`` updates ``.gpu`` but no longer returns it (a dropped ``return``).

Where: ``h2d_impl/buffer_utils.py::UvaBackedTensor.copy_to_uva``.

Change: ``return self.gpu`` deleted after ``self.gpu = self.pool.copy_to_uva(rows)`` (a
refactor that split the assignment from the return and lost the second line). The method
falls off its end and returns ``None``; ``.gpu`` itself is still refreshed.

Promise broken: docs/contracts.md, pool (``prop_backed_steps``): "each of 2-8 refreshes writes
new values into `.np`, then `copy_to_uva(n)` ... must return `.gpu` itself, holding the first
`n` rows of `.np` as they were at the call"; h2d_impl/buffer_utils.py signature
``copy_to_uva(self, n: int | None = None) -> torch.Tensor`` (vLLM's returns the view too).

Smallest input: ``t = UvaBackedTensor(2, torch.int32); t.np[:] = [1, 2]; t.copy_to_uva()``.
Reference: ``tensor([1, 2], dtype=torch.int32)`` (``is t.gpu``). Bug: ``None``.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def copy_to_uva(self, n: int | None = None) -> torch.Tensor:
    """Send the first ``n`` rows (all if None) through the pool; ``.gpu`` becomes their view. IndexError/TypeError naming ``n``."""
    rows = self.np if n is None else self.np[: row_count(n, self.cpu.shape[0])]
    self.gpu = self.pool.copy_to_uva(rows)  # BUG (r48 b11): the return was dropped


def target() -> Target:
    f = fork("b11")
    return make_target(
        "b11_backed_refresh_no_return",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b11", methods={"UvaBackedTensor": {"copy_to_uva": copy_to_uva}}),
    )
