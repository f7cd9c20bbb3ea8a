"""b08 copy_to_gpu_returns_source (CPU) -- ``buffer.CpuGpuBuffer.copy_to_gpu``.

What changed: a refactor names the two slices first and returns the wrong one::

    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)        # reference

    src, dst = self.cpu[:n], self.gpu[:n]                              # bug
    dst.copy_(src, non_blocking=True)
    return src

(the ``n=None`` branch is unchanged). Realistic: the two-line form reads better, and the
values of the returned view equal what was copied, so a value check passes.

Promise broken (reference.md, ``CpuGpuBuffer``: "``copy_to_gpu(n)`` / ``copy_to_cpu(n)``
... return that view of the destination"; README ``buffer``: "return that view of the
destination (its storage, not a copy ...)").

Smallest input: ``b = CpuGpuBuffer(3, dtype=torch.int32, device="cpu")``;
``b.np[:] = [1, 2, 3]``; ``r = b.copy_to_gpu(2)``: reference ``r`` shares ``b.gpu``'s storage
(``r.data_ptr() == b.gpu.data_ptr()``; writing ``r[0] = 9`` changes ``b.gpu``); bug ``r`` is
``b.cpu[:2]`` (writing it changes ``b.cpu``, not ``b.gpu``).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from plumbing import bu_fork, fork, make_target, rebind


def copy_to_gpu(self, n=None):
    n = self._rows(n)
    if n is None:
        return self.gpu.copy_(self.cpu, non_blocking=True)
    src, dst = self.cpu[:n], self.gpu[:n]
    dst.copy_(src, non_blocking=True)
    return src


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    __doc__ = _buffer.CpuGpuBuffer.__doc__


CpuGpuBuffer.copy_to_gpu = rebind(copy_to_gpu, _buffer)
CpuGpuBuffer.copy_to_gpu.__doc__ = _buffer.CpuGpuBuffer.copy_to_gpu.__doc__


def target() -> Target:
    f = fork("b08")
    return make_target(
        "b08_copy_to_gpu_returns_source",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b08"),
    )
