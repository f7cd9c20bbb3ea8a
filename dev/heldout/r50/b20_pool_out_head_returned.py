"""b20 (CPU): ``UvaBufferPool.copy_to_gpu(x, out=out)`` copies into ``out``'s first rows and returns that slice, not ``out``.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_gpu``.

Change (one expression)::

    return uva.clone() if out is None else out.copy_(uva, non_blocking=True)                  # reference
    return uva.clone() if out is None else out[: uva.shape[0]].copy_(uva, non_blocking=True)  # bug

The engineer meant to let engines pass their persistent, maximum-size device buffers as
``out`` (Model Runner V2 keeps ``(max_num_reqs, ...)`` tensors and fills a prefix each step).
With an ``out`` of exactly ``x``'s shape the values are right, but the call returns a new view
object, ``out[:n]``, not ``out`` itself: a caller that keeps the returned tensor as its
handle (``self.x = pool.copy_to_gpu(x, out=self.x)``) replaces its buffer by a view, and
identity-based code (CUDA-graph input checks, ``result is out``) breaks. A larger ``out`` is
now silently accepted with its tail left stale, where the reference's ``copy_`` would
broadcast or raise.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool.copy_to_gpu`` docstring:
"``copy_to_uva(x)`` then a device copy: a fresh clone, or ``out.copy_(view,
non_blocking=True)``" (``Tensor.copy_`` returns ``out``); docs/contracts.md, pool: "a
`copy_to_gpu` result (`out` itself when given) is the step's data in memory of its own, still
equal to it after every later step".

Smallest input: ``p = UvaBufferPool(4, torch.int32); out = torch.zeros(2, dtype=torch.int32);
r = p.copy_to_gpu([1, 2], out=out); r is out``.
Reference: ``True`` (``r == [1, 2]``). Bug: ``False`` (``r`` a view of ``out``, values ``[1, 2]``).
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def copy_to_gpu(self, x: torch.Tensor | np.ndarray, out: torch.Tensor | None = None) -> torch.Tensor:
    """``copy_to_uva(x)`` then a device copy: a fresh clone, or ``out.copy_(view, non_blocking=True)``."""
    uva = self.copy_to_uva(x)
    return uva.clone() if out is None else out[: uva.shape[0]].copy_(uva, non_blocking=True)  # BUG (r50 b20)


def target() -> Target:
    f = fork("b20")
    return make_target(
        "b20_pool_out_head_returned",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b20", methods={"UvaBufferPool": {"copy_to_gpu": copy_to_gpu}}),
    )
