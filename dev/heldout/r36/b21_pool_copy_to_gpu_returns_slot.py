"""``UvaBufferPool.copy_to_gpu(x)`` returns the slot's view instead of a clone.

What changed: ``copy_to_gpu(x, out=None)`` wrote ``x`` into the next slot and returned a
fresh clone of the slot's device view (``uva.clone()``). The change returns the view
itself: "the view is already device memory (a UVA view, or the fallback's device twin); the
clone is a second copy of the same bytes".

Why an engineer writes it: for one step the two are indistinguishable, and it removes a
device allocation and a copy from every call.

Promise broken: the method's docstring ("``copy_to_uva(x)`` then a device copy: a fresh
clone") and the pool's depth rule (docs/reference.md: readers valid until
``max_concurrency`` later steps reuse their slot; a *copy* is the caller's to keep): the
result of ``copy_to_gpu`` is overwritten ``max_concurrency`` calls later, whereas callers use
``copy_to_gpu`` exactly to get a tensor that outlives the slot.

Smallest input: ``p = UvaBufferPool(2, torch.int32, max_concurrency=1); r =
p.copy_to_gpu(np.array([1, 2], np.int32)); p.copy_to_gpu(np.array([3, 4], np.int32))``:
reference ``r == [1, 2]``; bug ``r == [3, 4]``.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl.buffer_utils import UvaBufferPool

from ._common import buffer_utils_ns, make_target


class SlotViewPool(UvaBufferPool):
    def copy_to_gpu(self, x: torch.Tensor | np.ndarray, out: torch.Tensor | None = None) -> torch.Tensor:
        uva = self.copy_to_uva(x)
        return uva if out is None else out.copy_(uva, non_blocking=True)  # BUG: was uva.clone()


def target() -> Target:
    return make_target(
        "b21_pool_copy_to_gpu_returns_slot", buffer_utils=buffer_utils_ns(UvaBufferPool=SlotViewPool)
    )
