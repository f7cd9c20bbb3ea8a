"""``UvaBackedTensor.copy_to_uva(n)`` returns the new view but leaves ``.gpu`` pointing at the old slot.

What changed: ``copy_to_uva(n)`` sent the rows through the pool and re-pointed ``.gpu`` at the
slot just written (``self.gpu = self.pool.copy_to_uva(rows)``). The change returns the
pool's view without the assignment: "callers use the return value; the attribute write is
a leftover".

Why an engineer writes it: a refactor that turns an attribute side effect into a return
value, checked against call sites that use the return value.

Promise broken: the class docstring and docs/reference.md ("``.gpu`` is the view of the slot
written by the latest ``copy_to_uva``"; vLLM's model runner reads ``tensor.gpu`` after
``copy_to_uva()``). ``.gpu`` keeps the view of the slot written at construction: it reads
the zeros of the first upload (or, once that slot comes round again, rows of another
step, cut to the first upload's length).

Smallest input: ``t = UvaBackedTensor(2, torch.int32); t.np[:] = 7; t.copy_to_uva()``:
reference ``t.gpu == [7, 7]``; bug ``t.gpu == [0, 0]``.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl.buffer import row_count
from h2d_contracts.h2d_impl.buffer_utils import UvaBackedTensor

from ._common import buffer_utils_ns, make_target


class StaleGpuUvaBackedTensor(UvaBackedTensor):
    def copy_to_uva(self, n: int | None = None) -> torch.Tensor:
        rows = self.np if n is None else self.np[: row_count(n, self.cpu.shape[0])]
        return self.pool.copy_to_uva(rows)  # BUG: was `self.gpu = self.pool.copy_to_uva(rows); return self.gpu`


def target() -> Target:
    return make_target(
        "b22_uva_backed_gpu_not_updated", buffer_utils=buffer_utils_ns(UvaBackedTensor=StaleGpuUvaBackedTensor)
    )
