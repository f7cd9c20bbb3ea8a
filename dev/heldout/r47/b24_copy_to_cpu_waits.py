"""b24 copy_to_cpu_waits (GPU only) -- ``buffer.CpuGpuBuffer.copy_to_cpu``.

What changed: a "friendlier" ``copy_to_cpu`` makes ``.cpu`` valid on return::

    out = self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)
    if self.gpu.is_cuda:
        torch.cuda.current_stream(self.gpu.device).synchronize()   # added
    return out

Realistic: every caller of ``copy_to_cpu`` read ``.np`` right after it and some forgot the
documented wait; synchronising inside fixes those callers. But the call now blocks the
host until all queued work on the stream (the forward pass) has run.

Why GPU only: the wait is taken only when ``.gpu`` is a CUDA tensor; on a CPU-only host
``.gpu`` is on the host, nothing is waited for, and every public call behaves as the
control's (repro.py).

Promise broken (reference.md, ``CpuGpuBuffer``: "``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` copy
rows ``[0, n)`` with ``non_blocking=True`` on the current stream of ``.gpu``'s device";
``copy_to_cpu`` docstring: "The values in ``.cpu``/``.np`` are only valid after the copy has
completed: synchronize ... before reading them"; contracts.md ``non-blocking``:
"``prop_buffer_non_blocking``: ``copy_to_gpu(n)`` and ``copy_to_cpu(n)`` of a pinned ``.cpu``").

Smallest GPU input: ``b = CpuGpuBuffer(1 << 20, dtype=torch.int32, device="cuda:0")``;
``torch.cuda._sleep(<200 ms>)``; ``b.copy_to_cpu()``: reference returns while the sleep
still runs (its event not yet complete); bug returns only after it.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from plumbing import bu_fork, fork, make_target, rebind


def copy_to_cpu(self, n=None):
    n = self._rows(n)
    if n is None:
        out = self.cpu.copy_(self.gpu, non_blocking=True)
    else:
        out = self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)
    if self.gpu.is_cuda:
        torch.cuda.current_stream(self.gpu.device).synchronize()  # noqa: F821
    return out


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    __doc__ = _buffer.CpuGpuBuffer.__doc__


CpuGpuBuffer.copy_to_cpu = rebind(copy_to_cpu, _buffer)
CpuGpuBuffer.copy_to_cpu.__doc__ = _buffer.CpuGpuBuffer.copy_to_cpu.__doc__


def target() -> Target:
    f = fork("b24")
    return make_target(
        "b24_copy_to_cpu_waits",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b24"),
    )
