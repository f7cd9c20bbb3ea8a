"""b25 (GPU-only): a pool keeps only the most recently replaced slot alive.

Where: ``buffer_utils.UvaBufferPool._retire`` (called when a slot grows). The reference
prunes the retired list of blocks whose event has completed and appends the replaced
slot with an event recorded on the current stream, so every reader queued before any
growth keeps its pinned block. The bug replaces the list, ``self._retired = [(buf,
event)]`` ("by the next growth the previous one's readers have long run").

Why realistic: a simplification of the bookkeeping, true for a pool that grows once; with
several slots growing in one step (a batch of longer prompts reaches every slot), the
earlier replaced block is dropped while a kernel queued before its growth still reads it
through its UVA address; torch's caching host allocator hands the block to the next pinned
allocation of its size, and the queued reader reads that allocation's bytes.

On a CPU-only host slots are ``NonUvaBuffer`` and nothing is retired in either target:
every call behaves as the control. On one CUDA GPU (UVA): ``p = UvaBufferPool(4,
torch.int32, 2)``; ``torch.cuda._sleep(int(2e9))``; ``v = p.copy_to_uva(np.full(4, 1,
np.int32)); r = v.clone(); del v`` (a reader queued behind the sleep); ``p.copy_to_uva(np.full(4,
2, np.int32))``; ``p.copy_to_uva(np.full(8, 3, np.int32))`` (``v``'s slot grows: retired);
``p.copy_to_uva(np.full(8, 4, np.int32))`` (the other slot grows: the bug drops ``v``'s
block); ``xs = [torch.full((4,), 9, dtype=torch.int32).pin_memory() for _ in range(8)]``
(new pinned allocations of that size);
``torch.cuda.synchronize(); r``: the reference reads ``[1, 1, 1, 1]``, the bug ``[9, 9, 9,
9]`` (or whatever the reused block holds).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _retire(self, buf):
    """Keep a replaced slot alive until the current stream has passed this point (host-side readers: until dropped)."""
    if isinstance(buf, UvaBuffer) and torch.cuda.is_available():
        event = torch.cuda.Event()
        event.record()
        # BUG: was prune (`[(b, e) for b, e in self._retired if e is not None and not e.query()]`) then append
        self._retired = [(buf, event)]


def target() -> Target:
    f = fork("b25")
    return make_target(
        "b25_pool_retired_latest_only",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b25", methods={"UvaBufferPool": {"_retire": _retire}}),
    )
