"""b20 (GPU-only): ``CpuGpuBuffer.copy_to_gpu`` copies from ``.cpu.clone()`` "so the host can refill at once": the clone is pageable.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.copy_to_gpu`` (both branches: ``n`` given and
``n=None``).

Change (one line each branch)::

    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)           # reference
    return self.gpu[:n].copy_(self.cpu[:n].clone(), non_blocking=True)   # bug

``Tensor.clone()`` does not keep page-locked memory: the source of the "non-blocking" copy
is a fresh pageable tensor. On CUDA the copy becomes a pageable -> device copy (the driver
stages it and the host waits behind the stream's queued work), and it is a hidden snapshot:
an overwrite of ``.cpu`` right after the call no longer reaches ``.gpu``, the zero-copy
behaviour (and hazard) the docs promise. Values, return value and objects are unchanged.

Promise broken: docs/reference.md: "`copy_to_gpu(n)` / `copy_to_cpu(n)` copy rows `[0, n)`
with `non_blocking=True` on the current stream of `.gpu`'s device" and (Zero-copy) "The same
holds for `CpuGpuBuffer.cpu` after `copy_to_gpu(n)`" (DMA'd from its own pinned memory);
docs/contracts.md, snapshot: "for `CpuGpuBuffer.cpu` after `copy_to_gpu(n)` the documented
hazard is real (an overwrite before the copy ran reaches the device: no hidden copy)";
non-blocking, ``prop_buffer_non_blocking``: "`copy_to_gpu(n)` ... of a pinned `.cpu`" returns
while queued work still runs; "Per-step inputs ... a CpuGpuBuffer ... The cheapest call".

On a CPU-only host every public call behaves as the control's (a host-to-host copy from a
clone: same values, same returned view of ``.gpu``, same objects).

GPU input: ``b = CpuGpuBuffer(1 << 22, dtype=torch.int32, device='cuda'); b.np[:] = 1;
torch.cuda._sleep(2 * 10**8); r = b.copy_to_gpu(); b.np[:] = 2; torch.cuda.synchronize();
int(r[0])``. Reference: the call returns during the sleep and ``r[0] == 2`` (the hazard).
Bug: ``r[0] == 1`` (a hidden snapshot), and the call, a pageable copy, typically waits for the sleep.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer
from plumbing import bu_fork, fork, make_target, rebind

def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
    """Copy rows ``[0, n)`` of ``.cpu`` to ``.gpu`` with ``non_blocking=True``.

    The copy is ordered on the current stream of ``.gpu``'s device. Rows from ``n``
    on are not touched. Hazard (as in vLLM): ``.cpu``/``.np`` rows ``[0, n)`` must
    not be rewritten until the copy has completed; wait with
    ``torch.cuda.current_stream(device).synchronize()`` or an event recorded right
    after this call.

    Args:
        n: number of rows, ``0 <= n <= capacity``; None copies the whole buffer.

    Returns:
        ``.gpu[:n]`` (a view of shape ``(n, *size[1:])``), or ``.gpu`` when ``n`` is None.

    Raises:
        TypeError: ``n`` is not an int (bools and floats included).
        IndexError: ``n`` outside ``[0, capacity]``; nothing is copied.
    """
    n = self._rows(n)
    if n is None:
        return self.gpu.copy_(self.cpu.clone(), non_blocking=True)  # BUG (r48 b20): a snapshot "for safety"
    return self.gpu[:n].copy_(self.cpu[:n].clone(), non_blocking=True)  # BUG (r48 b20)


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    copy_to_gpu = rebind(copy_to_gpu, buffer)


def target() -> Target:
    f = fork("b20")
    return make_target(
        "b20_buffer_copy_from_clone",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b20"),
    )
