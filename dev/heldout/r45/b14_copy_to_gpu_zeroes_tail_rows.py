"""b14 - ``copy_to_gpu(n)`` also zero-fills ``.gpu``'s rows from ``n`` on ("no stale rows past the batch").

Where: ``CpuGpuBuffer.copy_to_gpu``.

Change (old -> new)::

    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)
    ->
    self.gpu[n:].zero_()  # BUG: defensive clearing of the rows past n
    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)

Why an engineer writes it: after a debugging session where a kernel read past the live rows
(padded to a CUDA-graph batch size) and saw the previous step's ids, clearing the tail makes
the padding deterministic; the copy of rows ``[0, n)`` is untouched and the return value is
the same view, so the buffer tests of ``copy_to_gpu``'s result all pass.

Promise broken: docs/contracts.md "buffer" ("``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` copy exactly
rows ``[0, n)`` ..., leave the other rows alone"; ``prop_buffer_state_machine`` writes rows of
``.gpu`` and checks them against a numpy model) and the method's own docstring ("Rows from
``n`` on are not touched").

Smallest input (CPU)::

    b = CpuGpuBuffer(2, dtype=torch.int32, device="cpu")
    b.gpu.fill_(7); b.copy_to_gpu(1); b.gpu.tolist()

Reference: ``[0, 7]``.
Bug: ``[0, 0]``.
"""

from __future__ import annotations

import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer
from plumbing import fork, fork_target_full, rebind


def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
    """Copy rows ``[0, n)`` of ``.cpu`` to ``.gpu`` with ``non_blocking=True`` (see the reference)."""
    n = self._rows(n)
    if n is None:
        return self.gpu.copy_(self.cpu, non_blocking=True)
    self.gpu[n:].zero_()  # BUG: clears the rows past n
    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)


def target() -> Target:
    buf = type(
        "CpuGpuBuffer", (CpuGpuBuffer,), {"__module__": __name__, "copy_to_gpu": rebind(copy_to_gpu, _buffer)}
    )
    return fork_target_full("b14_copy_to_gpu_zeroes_tail_rows", fork("b14"), buffer_cls=buf)
