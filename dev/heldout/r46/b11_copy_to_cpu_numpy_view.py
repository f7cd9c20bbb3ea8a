"""b11 (CPU): ``CpuGpuBuffer.copy_to_cpu(n)`` returns the numpy view of the rows.

Where: ``buffer.CpuGpuBuffer.copy_to_cpu`` (the ``n`` given branch). The reference returns
``.cpu[:n]``, the tensor view of the destination (as ``copy_to_gpu`` returns ``.gpu[:n]``).
The bug copies the same rows and returns ``self._np[:n]`` when the buffer has a numpy view
("every caller reads the sampled ids with numpy right after").

Why realistic: a convenience for the sampler's caller; the values are right, but the return
value is no longer a tensor: ``.to(...)``, ``.tolist()`` of a 2-D tensor, ``torch.equal``,
``.is_pinned()``, and anything that expected the documented ``.cpu[:n]`` break, and only for
buffers with ``.np``.

Smallest input: ``b = CpuGpuBuffer(3, dtype=torch.int32, device="cpu");
b.gpu.fill_(5); r = b.copy_to_cpu(2)``. Reference: ``r`` is ``tensor([5, 5],
dtype=torch.int32)`` sharing ``.cpu``'s memory. Bug: ``r`` is ``array([5, 5],
dtype=int32)`` (a ``numpy.ndarray``).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from plumbing import bu_fork, fork, make_target, rebind


def copy_to_cpu(self, n=None):
    n = self._rows(n)
    if n is None:
        return self.cpu.copy_(self.gpu, non_blocking=True)
    rows = self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)
    return self._np[:n] if self._np is not None else rows  # BUG: was `return <the .cpu[:n] view>`


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    __doc__ = _buffer.CpuGpuBuffer.__doc__
    copy_to_cpu = rebind(copy_to_cpu, _buffer)


def target() -> Target:
    f = fork("b11")
    return make_target(
        "b11_copy_to_cpu_numpy_view",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b11"),
    )
