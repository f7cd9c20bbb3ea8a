"""b20 (GPU): ``CpuGpuBuffer.copy_to_gpu(n)`` snapshots the host rows with ``.clone()`` before the non-blocking copy.

Where: ``buffer.CpuGpuBuffer.copy_to_gpu`` (both branches).

The change::

    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)
    ->
    return self.gpu[:n].copy_(self.cpu[:n].clone(), non_blocking=True)
    (and ``self.cpu.clone()`` for ``n=None``)

Why an engineer writes it: the documented hazard ("do not write ``.cpu``/``.np`` rows until
the copy has completed") bites engines that refill ``.np`` for the next step right away;
a snapshot of the rows makes the refill safe, and on the host the values are the same.
``clone()`` of a pinned tensor is pageable (``empty_like`` does not pin), so the copy is a
pageable-to-device ``cudaMemcpyAsync``: the host synchronises with the stream before
issuing it, waiting for all queued work; and the pageable temporary is a hidden copy the
buffer promises not to make (the hazard is real, and so is the cheapness).

Promise broken: docs/reference.md *CpuGpuBuffer*: "``copy_to_gpu(n)`` / ``copy_to_cpu(n)``
copy rows ``[0, n)`` with ``non_blocking=True`` on the current stream"; "Which pattern
when": "a ``CpuGpuBuffer`` ... then ``copy_to_gpu(n)``. The cheapest call, but no snapshot";
*Zero-copy*: "The same holds for ``CpuGpuBuffer.cpu`` after ``copy_to_gpu(n)``";
docs/contracts.md ``snapshot`` (``prop_buffer_hazard``: "no hidden copy"),
``non-blocking`` (``prop_buffer_non_blocking``), ``staging`` (no "Pageable -> Device").

How a CUDA call shows it: ``b = CpuGpuBuffer(1 << 22, dtype=torch.int32, device="cuda")``
(pinned), ``torch.cuda._sleep(...)`` queued (100 ms), then ``b.copy_to_gpu(1 << 22)``:
reference returns at once (the stream's event after the sleep not yet complete); bug
returns only after the sleep. Or write ``b.np[:] = 7`` right after the call with the
stream busy: reference ``.gpu`` holds 7 (the hazard, documented), bug 0. On a CPU-only
host nothing differs (values and returned views are the reference's).
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer

from ._bu import bu_fork
from ._common import fork, make_target, rebind


def copy_to_gpu(self, n: Any = None) -> torch.Tensor:
    """Copy rows ``[0, n)`` of ``.cpu`` to ``.gpu`` with ``non_blocking=True``."""
    n = self._rows(n)
    if n is None:
        return self.gpu.copy_(self.cpu.clone(), non_blocking=True)  # BUG: snapshot (pageable) first
    return self.gpu[:n].copy_(self.cpu[:n].clone(), non_blocking=True)  # BUG: snapshot (pageable) first


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    __doc__ = _buffer.CpuGpuBuffer.__doc__
    copy_to_gpu = rebind(copy_to_gpu, _buffer)


def target() -> Target:
    f = fork("b20")
    return make_target(
        "b20_buffer_rows_snapshot_cloned",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b20"),
    )
