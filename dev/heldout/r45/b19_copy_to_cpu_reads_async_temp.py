"""b19 (GPU-only) - ``copy_to_cpu(n)`` goes through ``.to("cpu", non_blocking=True)`` and copies that temporary on the host at once.

Where: ``CpuGpuBuffer.copy_to_cpu``.

Change (old -> new)::

    if n is None:
        return self.cpu.copy_(self.gpu, non_blocking=True)
    return self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)
    ->
    if n is None:
        return self.cpu.copy_(self.gpu.to("cpu", non_blocking=True))  # BUG
    return self.cpu[:n].copy_(self.gpu[:n].to("cpu", non_blocking=True))  # BUG

Why an engineer writes it: with ``pin_memory=False`` (and on hosts without pinning) a
``non_blocking`` D2H copy into the pageable ``.cpu`` silently degrades to a synchronous copy
that waits for the whole stream; ``.to("cpu", non_blocking=True)`` always lands in pinned
memory (torch allocates the destination pinned for a non-blocking D2H), so the DMA is
asynchronous, and a host copy into ``.cpu`` follows. On a CPU host ``.to("cpu")`` of a CPU
tensor returns the tensor itself and the host copy is exact, so every CPU test passes.

Promise broken (one CUDA device): docs/reference.md "Zero-copy" / "What it promises"
(``copy_to_cpu(n)`` copies rows ``[0, n)``; "after ``copy_to_cpu(n)``, ``.cpu`` is valid only once
that wait is done" - i.e. valid *after* the documented wait), docs/contracts.md "buffer"
(``copy_to_cpu(n)`` copies exactly rows ``[0, n)``; the state machine reads ``.cpu`` after the
wait). The host copy reads the pinned temporary immediately, before the queued D2H has written
it, and nothing ever copies the real values into ``.cpu``.

What a CUDA run shows: ``b = CpuGpuBuffer(4, dtype=torch.int32, device="cuda:0",
pin_memory=True)``; ``b.gpu.fill_(5)``; ``torch.cuda._sleep(10**8)`` (the stream busy);
``b.copy_to_cpu()``; ``torch.cuda.current_stream().synchronize()``; ``b.cpu.tolist()``.
Reference: ``[5, 5, 5, 5]``. Bug: whatever the freshly allocated pinned block held when the host
copied it (``[0, 0, 0, 0]`` for a new block from the caching host allocator, stale data of an
earlier copy for a reused one), never ``[5, 5, 5, 5]``.

Smallest input: CUDA-only (see above). On the CPU, ``b.gpu.fill_(5); b.copy_to_cpu()`` leaves
``b.cpu`` all 5 for both.
"""

from __future__ import annotations

import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer
from plumbing import fork, fork_target_full, rebind


def copy_to_cpu(self, n: int | None = None) -> torch.Tensor:
    """Copy rows ``[0, n)`` of ``.gpu`` back to ``.cpu`` (see the reference)."""
    n = self._rows(n)
    if n is None:
        return self.cpu.copy_(self.gpu.to("cpu", non_blocking=True))  # BUG: host copy of an async D2H temporary
    return self.cpu[:n].copy_(self.gpu[:n].to("cpu", non_blocking=True))  # BUG


def target() -> Target:
    buf = type(
        "CpuGpuBuffer", (CpuGpuBuffer,), {"__module__": __name__, "copy_to_cpu": rebind(copy_to_cpu, _buffer)}
    )
    return fork_target_full("b19_copy_to_cpu_reads_async_temp", fork("b19"), buffer_cls=buf)
