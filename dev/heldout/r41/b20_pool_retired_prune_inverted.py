"""b20 (GPU-only): ``UvaBufferPool._retire`` keeps the retired slots whose event has completed and drops the pending ones.

Where: ``UvaBufferPool._retire`` (called when a slot grows).

Change: the prune ``[(b, e) for b, e in self._retired if e is not None and not e.query()]``
lost its ``not``: ``... if e is not None and e.query()]``.

Why plausible: ``Event.query()`` reads as "is it still queued?" to many (it returns True
when the work *has completed*); the prune looks right either way at a glance, and no value
on the host changes. On CUDA both halves are wrong: a replaced slot whose readers are
still queued is dropped at the next growth (its pinned block goes back to the caching host
allocator while a kernel may still read it), and every slot whose readers finished is
kept for ever.

Promise broken: ``UvaBufferPool``: "a grown slot's old block is kept until the current stream
has passed the growth, so readers queued before it keep reading their data, not another
allocation's"; docs/contracts.md (pool): "On CUDA, a pool whose every slot grows six times
(rows 2 to 64), the stream drained after each round, holds at most two live pinned blocks
a slot, its slot and the one it replaced last (table ``prop_pool_growth_released``) ...: a
pool that kept every replaced slot would hold pinned memory growing with each growth".

Smallest input (CUDA): ``p = UvaBufferPool(2, torch.int32, 1)``; for k in 2..7:
``p.copy_to_uva(list(range(2**k))); torch.cuda.synchronize()``; then ``len(p._retired)`` (or
``host_memory_stats()["allocations.current"]`` after ``torch._C._host_emptyCache()``).
Reference: ``len(p._retired)`` <= 1 (the last replaced slot until the stream passes it).
Bug: 6 (every replaced slot of the six growths retained), pinned memory growing with each growth.
On a CPU host slots are ``NonUvaBuffer`` and ``_retired`` stays empty: invisible there.
"""

from __future__ import annotations

import torch

from ._bu import bu_fork, bu_target

TAG, SHORT = "b20", "b20_pool_retired_prune_inverted"


def _retire(self, buf) -> None:
    """Keep a replaced slot alive until the current stream has passed this point (host-side readers: until dropped)."""
    self._retired = [(b, e) for b, e in self._retired if e is not None and e.query()]  # BUG: `not` dropped
    if isinstance(buf, UvaBuffer) and torch.cuda.is_available():  # noqa: F821
        event = torch.cuda.Event()
        event.record()
        self._retired.append((buf, event))


def classes():
    return bu_fork(TAG, methods={"UvaBufferPool": {"_retire": _retire}})


def target():
    return bu_target(TAG, SHORT, classes())
