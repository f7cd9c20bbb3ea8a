"""b15 (CPU): ``UvaBufferPool.copy_to_gpu`` without ``out`` sends ``x`` through the pool twice (two slots per call).

Where: ``UvaBufferPool.copy_to_gpu``.

Change: the one-line body was split into branches, and the ``out is None`` branch calls
``copy_to_uva`` again instead of using ``uva``::

    uva = self.copy_to_uva(x)
    if out is None:
        return self.copy_to_uva(x).clone()     # was: uva.clone()
    return out.copy_(uva, non_blocking=True)

Why plausible: a refactor of ``return uva.clone() if out is None else out.copy_(...)`` into
an ``if``; the left-over first line keeps every value right (the clone holds ``x``; ``out`` is
written once), so no value test of ``copy_to_gpu`` alone notices. But each call advances the
round-robin cursor twice, so a reader handed out by an earlier ``copy_to_uva`` has its slot
reused after ``max_concurrency / 2`` calls.

Promise broken: ``UvaBufferPool``: "A reader of that view sees its data until
``max_concurrency`` more calls have come"; docs/contracts.md (pool): each step "sent by a drawn
method: ``copy_to_uva(x)``, ``copy_to_gpu(x)`` or ``copy_to_gpu(x, out=out)``", readers retired
"``max_concurrency`` *accepted* calls later".

Smallest input: ``p = UvaBufferPool(1, torch.int32, 2); a = p.copy_to_uva([1]); p.copy_to_gpu([2]); a``.
Reference: ``a`` = [1].
Bug: ``a`` = [2] (the second, hidden ``copy_to_uva`` reused ``a``'s slot).
"""

from __future__ import annotations

import torch

from ._bu import bu_fork, bu_target

TAG, SHORT = "b15", "b15_pool_copy_to_gpu_takes_two_slots"


def copy_to_gpu(self, x, out: torch.Tensor | None = None) -> torch.Tensor:
    """``copy_to_uva(x)`` then a device copy: a fresh clone, or ``out.copy_(view, non_blocking=True)``."""
    uva = self.copy_to_uva(x)
    if out is None:
        return self.copy_to_uva(x).clone()  # BUG: was uva.clone()
    return out.copy_(uva, non_blocking=True)


def classes():
    return bu_fork(TAG, methods={"UvaBufferPool": {"copy_to_gpu": copy_to_gpu}})


def target():
    return bu_target(TAG, SHORT, classes())
