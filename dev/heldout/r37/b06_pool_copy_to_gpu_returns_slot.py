"""UvaBufferPool.copy_to_gpu returns the slot's view itself instead of a clone when no ``out`` is given.

What changed: ``return uva.clone() if out is None else out.copy_(...)`` became
``return uva if out is None else out.copy_(...)``.

Why an engineer would write it: "the UVA view is already a device tensor; cloning it is a
second device copy per step for nothing". The view is indeed on the device, but it is the
round-robin slot's memory, rewritten ``max_concurrency`` calls later.

Promise broken (UvaBufferPool.copy_to_gpu's docstring; contract pool's readers):
``copy_to_gpu(x)`` is ``copy_to_uva(x)`` then a device copy, "a fresh clone": a result
that belongs to the caller and never changes afterwards.

Smallest input: ``p = UvaBufferPool(1, torch.int32, 1); r = p.copy_to_gpu(np.array([1],
np.int32)); p.copy_to_gpu(np.array([2], np.int32)); r``: reference ``[1]``, bug ``[2]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _copy_to_gpu(self, x, out=None):  # type: ignore[no-untyped-def]
    uva = self.copy_to_uva(x)
    return uva if out is None else out.copy_(uva, non_blocking=True)  # BUG: the slot's own view, no clone


class UvaBufferPool(REF.UvaBufferPool):
    copy_to_gpu = rebind(_copy_to_gpu)


def target() -> Target:
    return make_target("pool_copy_to_gpu_returns_slot", UvaBufferPool=UvaBufferPool)
