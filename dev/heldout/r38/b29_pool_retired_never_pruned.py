"""b29 (GPU-only, buffer_utils.py ``UvaBufferPool._retire``): replaced slots are kept forever.

What changed: the first line of ``_retire``, which drops retired slots whose event has
completed (``self._retired = [(b, e) for b, e in self._retired if e is not None and not
e.query()]``), was removed; ``_retire`` only appends.

Why an engineer would write it: "the retired list is tiny (one entry per growth) and
querying events on every growth costs a driver call; keeping a few old blocks is harmless".
But every growth of every slot appends a whole pinned ``UvaBuffer`` (the old, smaller slot
with its ``.cpu``, ``.np`` and UVA view), and nothing ever removes it: pinned host memory
grows with the number of growths for the life of the pool.

Observable (CUDA only: only ``UvaBuffer`` slots, which need UVA, are retired with an event;
on a host without UVA ``_retire`` keeps nothing in either version): ``p =
UvaBufferPool(1, torch.int32, 1)``; ``w = weakref.ref(p._uva_bufs[0])``; ``p.copy_to_uva([1, 2])``
(grows the slot); ``torch.cuda.synchronize()``; ``p.copy_to_uva(list(range(4)))`` (grows again,
prunes in the reference); ``gc.collect()``. Reference: ``w() is None`` (the first slot's pinned
block is released once the stream passed its growth). Bug: ``w()`` is still the old
``UvaBuffer``; after k growths the pool holds all k old pinned blocks
(``torch.cuda.host_memory_stats()["allocated_bytes.current"]`` does not come back down).

Promise broken: docs/reference.md "a grown pool slot's old pinned block is kept until the
current stream has passed the growth (an event)"; ``_retire``: "Keep a replaced slot alive
until the current stream has passed this point"; contracts.md hygiene / step-loop ("no
dropped buffer of any step is still referenced", pinned bytes back at the warm-up's reading).
"""

from __future__ import annotations

from typing import Any

import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer_utils as _bu

from ._common import buffer_utils_ns, fork, make_target, rebind


def _retire(self, buf: Any) -> None:
    """Keep a replaced slot alive until the current stream has passed this point (host-side readers: until dropped)."""
    # BUG: the pruning of completed entries (`self._retired = [... if e is not None and not e.query()]`)
    # was removed: every replaced pinned slot stays referenced for the life of the pool
    if isinstance(buf, UvaBuffer) and torch.cuda.is_available():  # noqa: F821
        event = torch.cuda.Event()
        event.record()
        self._retired.append((buf, event))


class BuggyUvaBufferPool(_bu.UvaBufferPool):
    _retire = rebind(_retire, _bu)


def target() -> Target:
    f = fork("b29")
    return make_target(
        "b29_pool_retired_never_pruned",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(UvaBufferPool=BuggyUvaBufferPool),
    )
