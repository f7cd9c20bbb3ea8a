"""b15 (CPU-visible, buffer.py ``CpuGpuBuffer.copy_to_gpu``): ``n=None`` is folded into ``n = capacity``, so the whole copy returns a view.

What changed: the two branches became one::

    n = self.capacity if n is None else self._rows(n)
    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)

Why an engineer would write it: "``None`` means all rows; one code path instead of two".
The rows copied are the same, but the result of ``copy_to_gpu()`` is now a new view object
``.gpu[:capacity]``, not ``.gpu`` itself.

Promise broken: docstring "Returns: ``.gpu[:n]`` (a view ...), or ``.gpu`` when ``n`` is None";
contracts.md buffer ("return that view of the destination ..., ``.cpu`` and ``.gpu`` staying
the same objects at the same addresses (engines and captured CUDA graphs hold them)"). A
caller that keys a captured graph or a cache on the returned object
(``copy_to_gpu() is buf.gpu``), or that resizes/rebinds through it, sees another object.

Smallest input: ``b = CpuGpuBuffer(2, dtype=torch.int32, device="cpu"); b.copy_to_gpu() is b.gpu``.
Reference: ``True``. Bug: ``False``.
"""

from __future__ import annotations

import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import CpuGpuBuffer

from ._common import buffer_utils_ns, fork, make_target


class BuggyCpuGpuBuffer(CpuGpuBuffer):
    def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
        """Copy rows ``[0, n)`` of ``.cpu`` to ``.gpu`` with ``non_blocking=True`` (the reference's docstring applies)."""
        n = self.capacity if n is None else self._rows(n)  # BUG: None folded into n=capacity: returns .gpu[:cap], not .gpu
        return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)

    copy_to_gpu.__doc__ = CpuGpuBuffer.copy_to_gpu.__doc__  # the reference's docstring, unchanged


def target() -> Target:
    f = fork("b15")
    return make_target(
        "b15_buffer_full_copy_returns_view",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=BuggyCpuGpuBuffer,
        buffer_utils=buffer_utils_ns(),
    )
