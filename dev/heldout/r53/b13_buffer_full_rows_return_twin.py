"""b13 (CPU): ``copy_to_gpu(n)`` with ``n == capacity`` returns ``.gpu`` itself instead of a view of its rows.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.copy_to_gpu``.

Change: the full-rows case folded into the ``None`` branch ("all rows is the whole buffer: skip
the two slices")::

    if n is None:                                                            # reference
        return self.gpu.copy_(self.cpu, non_blocking=True)
    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)

    if n is None or n == self.capacity:                                      # bug
        return self.gpu.copy_(self.cpu, non_blocking=True)
    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)

Values, shape and storage are the same. But the caller who asked for ``n`` rows now holds the
buffer's own ``.gpu`` object, not a view of it: an in-place metadata change the caller makes
to its rows (``unsqueeze_``, ``t_``, ``resize_``, ``requires_grad_``, ``as_strided_``) reshapes the
buffer's twin, which engines and captured graphs hold; only when the engine's batch exactly
fills the buffer.

Promise broken: h2d_impl/buffer.py ``CpuGpuBuffer.copy_to_gpu``: "Returns: ``.gpu[:n]`` (a view of
shape ``(n, *size[1:])``), or ``.gpu`` when ``n`` is None"; docs/contracts.md, buffer: "return that
view of the destination ... (for ``n=None`` the destination tensor itself ...), ``.cpu`` and ``.gpu``
staying the same objects at the same addresses".

Smallest input: ``b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); r = b.copy_to_gpu(2); r.unsqueeze_(0); (r is b.gpu, b.gpu.shape)``.
Reference: ``(False, (2,))``. Bug: ``(True, (1, 2))`` (the buffer's twin reshaped).
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer


def copy_to_gpu(self: Any, n: int | None = None) -> torch.Tensor:
    n = self._rows(n)
    if n is None or n == self.capacity:  # BUG (r53 b13): all rows -> the twin itself, not a view
        return self.gpu.copy_(self.cpu, non_blocking=True)
    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    copy_to_gpu = rebind(copy_to_gpu, buffer)


def target() -> Target:
    f = fork("b13")
    return make_target(
        "b13_buffer_full_rows_return_twin",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b13"),
    )
