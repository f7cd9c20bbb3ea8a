"""b19 (CPU): a new ``UvaBackedTensor``'s ``.gpu`` has no rows until the first refresh.

Where: h2d_impl/buffer_utils.py, ``UvaBackedTensor.__init__``.
Change: ``self.gpu = self.pool.copy_to_uva(self.np)`` -> ``self.gpu = self.pool.copy_to_uva(self.np[:0])``.
Why plausible: "don't upload zeros at construction: a fresh slot is zeros already; send an empty
    slice just to get the slot's view". But the view is of the rows sent: none.
Promise broken: contracts.md pool (``UvaBackedTensor``): "``.gpu`` starts as zeros"; UvaBackedTensor's
    docstring: "``.gpu`` is the view of the slot written by the latest ``copy_to_uva``" (the
    constructor's, of every row); engines (and CUDA graphs captured at start-up) read ``.gpu``
    before the first refresh.
Smallest input:
    UvaBackedTensor((4, 2), torch.int32).gpu.shape
Reference: ``torch.Size([4, 2])``, zeros. Bug: ``torch.Size([0, 2])``. After the first
    ``copy_to_uva()`` both agree.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target


def __init__(self, size: int | Sequence[int], dtype: torch.dtype, max_concurrency: int | None = None) -> None:  # noqa: N807
    shape, self.dtype = _shape(size), _dtype(dtype)  # noqa: F821 (buffer_utils' globals)
    self.cpu = torch.zeros(shape, dtype=dtype, device="cpu", pin_memory=False)
    self.np = self.cpu.numpy()
    self.pool = UvaBufferPool(shape, dtype, max_concurrency)  # noqa: F821
    self.gpu = self.pool.copy_to_uva(self.np[:0])  # BUG: an empty slice: the first view has no rows


def classes():
    return bu_fork("b19", methods={"UvaBackedTensor": {"__init__": __init__}})


def target() -> Target:
    return bu_target("b19", "b19_backed_initial_view_empty", classes())
