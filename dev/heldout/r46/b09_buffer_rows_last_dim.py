"""b09 (CPU): ``CpuGpuBuffer.copy_to_gpu(n)`` slices the last dimension, not the rows.

Where: ``buffer.CpuGpuBuffer.copy_to_gpu`` (the ``n`` given branch). The reference copies
rows ``[0, n)``: ``self.gpu[:n].copy_(self.cpu[:n])``. The bug writes
``self.gpu[..., :n].copy_(self.cpu[..., :n])`` ("n tokens of each request", generalising
the 1-D token buffers to 2-D ones). ``n`` is still validated against the row capacity.

Why realistic: identical for the 1-D buffers (input ids, positions) every test uses; only
2-D buffers (block tables, M-RoPE positions) copy the wrong elements.

Smallest input: ``b = CpuGpuBuffer(2, 3, dtype=torch.int32, device="cpu");
b.np[:] = [[1, 2, 3], [4, 5, 6]]; b.copy_to_gpu(1)``. Reference: returns ``[[1, 2, 3]]``,
``.gpu == [[1, 2, 3], [0, 0, 0]]``. Bug: returns ``[[1], [4]]``,
``.gpu == [[1, 0, 0], [4, 0, 0]]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from plumbing import bu_fork, fork, make_target, rebind


def copy_to_gpu(self, n=None):
    n = self._rows(n)
    if n is None:
        return self.gpu.copy_(self.cpu, non_blocking=True)
    return self.gpu[..., :n].copy_(self.cpu[..., :n], non_blocking=True)  # BUG: was [:n] (rows)


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    __doc__ = _buffer.CpuGpuBuffer.__doc__
    copy_to_gpu = rebind(copy_to_gpu, _buffer)


def target() -> Target:
    f = fork("b09")
    return make_target(
        "b09_buffer_rows_last_dim",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b09"),
    )
