"""b16 (CPU): ``UvaBackedTensor.copy_to_uva(n)`` bounds ``n`` by the rows of the last view (``.gpu``), not of the tensor: after a short refresh, a longer one is refused.

Where: ``h2d_impl/buffer_utils.py::UvaBackedTensor.copy_to_uva``.

Change (one attribute)::

    rows = self.np if n is None else self.np[: row_count(n, self.cpu.shape[0])]   # reference
    rows = self.np if n is None else self.np[: row_count(n, self.gpu.shape[0])]   # bug: "the rows .gpu holds"

Right until the first refresh of fewer rows than the tensor: ``.gpu`` is then the view of those
``n`` rows, and the next ``copy_to_uva(m)`` with ``m > n`` raises ``IndexError: n=m is outside
[0, n]`` though ``m`` is within the tensor. An engine whose batch grows (``copy_to_uva(num_reqs)``
with 3 requests, then 5) fails; ``copy_to_uva()`` (all rows) resets ``.gpu`` to full size, so the
failure comes and goes with the order of the steps.

Promise broken: h2d_impl/buffer_utils.py ``UvaBackedTensor.copy_to_uva`` docstring: "Send the
first ``n`` rows (all if None) through the pool ... IndexError/TypeError naming ``n``" (past the
tensor's rows); docs/contracts.md, pool: "each of 2-8 refreshes writes new values into `.np`,
then `copy_to_uva(n)` (`n` drawn in `[0, rows]` or `None`) must return `.gpu` itself, holding the
first `n` rows".

Smallest input: ``t = UvaBackedTensor(4, torch.int32); t.copy_to_uva(1); t.copy_to_uva(2)``.
Reference: ``tensor([0, 0], dtype=torch.int32)`` (2 rows). Bug: ``IndexError: n=2 is outside
[0, 1]``.
"""

from __future__ import annotations

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def copy_to_uva(self, n: int | None = None) -> torch.Tensor:
    rows = self.np if n is None else self.np[: row_count(n, self.gpu.shape[0])]  # noqa: F821  BUG (r51 b16)
    self.gpu = self.pool.copy_to_uva(rows)
    return self.gpu


def target() -> Target:
    f = fork("b16")
    return make_target(
        "b16_backed_rows_from_view",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b16", methods={"UvaBackedTensor": {"copy_to_uva": copy_to_uva}}),
    )
