"""b05 (CPU): ``CpuGpuBuffer.copy_to_gpu(n)`` memoises its ``.gpu[:n]`` views: every caller of one ``n`` gets the same tensor object.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.copy_to_gpu`` (a given ``n``; host and CUDA twins alike).

Change: the row view is kept per ``n`` ("the runner calls ``copy_to_gpu(num_reqs)`` every step with a
handful of distinct counts; building the view is a Python-level slice per call")::

    return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)                # reference

    views = self.__dict__.setdefault("_gpu_rows", {})                         # bug
    view = views.get(n)
    if view is None:
        view = views[n] = self.gpu[:n]
    return view.copy_(self.cpu[:n], non_blocking=True)

Values and storage are the reference's, and a view of ``.gpu`` is still returned. But it is one
Python tensor for every call with that ``n``: a caller who changes the returned view's metadata
in place (``unsqueeze_(0)`` to add a batch dimension, ``resize_``, ``t_()``, ``as_strided_``) changes
what every later ``copy_to_gpu(n)`` returns: the next step gets rows of shape ``(1, n)`` where it
asked for ``n`` rows. On a float buffer, a ``requires_grad_()`` on one result makes every later
``copy_to_gpu(n)`` of that ``n`` raise ``RuntimeError`` (an in-place write into a view of a leaf that
requires grad).

Promise broken: h2d_impl/buffer.py ``CpuGpuBuffer.copy_to_gpu``: "Returns: ``.gpu[:n]`` (a view of shape
``(n, *size[1:])``)"; docs/reference.md, ``CpuGpuBuffer``: "``copy_to_gpu(n)`` ... return that view of the
destination".

Smallest input: ``b = CpuGpuBuffer(4, dtype=torch.int32, device='cpu'); r1 = b.copy_to_gpu(2); r1.unsqueeze_(0);
r2 = b.copy_to_gpu(2); (r2 is r1, r2.shape)``.
Reference: ``(False, (2,))``. Bug: ``(True, (1, 2))``.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer


def copy_to_gpu(self: Any, n: int | None = None) -> torch.Tensor:
    n = self._rows(n)
    if n is None:
        return self.gpu.copy_(self.cpu, non_blocking=True)
    # one view per row count: the runner asks for the same few counts every step
    views = self.__dict__.setdefault("_gpu_rows", {})
    view = views.get(n)
    if view is None:
        view = views[n] = self.gpu[:n]  # BUG (r55 b05): the same tensor object handed to every caller of this n
    return view.copy_(self.cpu[:n], non_blocking=True)


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    copy_to_gpu = rebind(copy_to_gpu, buffer)


def target() -> Target:
    f = fork("b05")
    return make_target(
        "b05_buffer_row_views_memoised",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b05"),
    )
