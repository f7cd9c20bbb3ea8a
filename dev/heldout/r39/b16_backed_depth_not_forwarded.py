"""b16 (CPU-visible, buffer_utils.py ``UvaBackedTensor.__init__``): ``max_concurrency`` is not passed on to the pool, which always gets the default depth 2: readers are overwritten earlier than promised, and a depth of 0 or -1 is accepted.

What changed: ``self.pool = UvaBufferPool(shape, dtype, max_concurrency)`` became
``self.pool = UvaBufferPool(shape, dtype)``.

Why an engineer would write it: a refactor that normalised ``size`` through ``_shape``
and ``dtype`` through ``_dtype`` rewrote the pool's construction from the normalised
values and left the third argument out; the default (2) is what every engine passes
today (vLLM's batch queue size), so nothing in a default run changes.

Promise broken: ``UvaBackedTensor`` docstring: "max_concurrency: the pool's depth" and
"``.gpu`` is the view of the slot written by the latest ``copy_to_uva``: a reader queued
before holds the previous slot's view, valid for ``max_concurrency - 1`` more
refreshes"; docs/contracts.md pool: "every refresh's view keeps them until it is retired
``max_concurrency`` refreshes later" and "``max_concurrency`` 0, -1, 1.5 or ``True``
raises ``ValueError`` or ``TypeError`` naming ``max_concurrency``".

Smallest input: ``t = UvaBackedTensor(4, torch.int32, max_concurrency=3)``; refresh three
times (``t.np[:] = k; v_k = t.copy_to_uva()`` for k = 1, 2, 3); read ``v_1``. Also
``UvaBackedTensor(4, torch.int32, max_concurrency=0)``.

Reference result: ``v_1 == [1, 1, 1, 1]`` (three slots); depth 0: ``ValueError:
max_concurrency must be >= 1, got 0``.
Bug result: ``v_1 == [3, 3, 3, 3]`` (two slots: refresh 3 reused refresh 1's); depth 0
builds a tensor.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import make_target


def __init__(self, size: int | Sequence[int], dtype: torch.dtype, max_concurrency: int | None = None) -> None:
    shape, self.dtype = _shape(size), _dtype(dtype)
    self.cpu = torch.zeros(shape, dtype=dtype, device="cpu", pin_memory=False)
    self.np = self.cpu.numpy()
    self.pool = UvaBufferPool(shape, dtype)  # BUG: max_concurrency not passed on (was UvaBufferPool(shape, dtype, max_concurrency))
    self.gpu = self.pool.copy_to_uva(self.np)


def target() -> Target:
    ns = bu_fork("b16", methods={"UvaBackedTensor": {"__init__": __init__}})
    return make_target("b16_backed_depth_not_forwarded", buffer_utils=ns)
