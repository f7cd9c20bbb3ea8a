"""b12 (CPU): ``UvaBufferPool.copy_to_gpu(x)`` returns ``uva.contiguous()`` for ``uva.clone()``: the "copy" is the slot's own view.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_gpu`` (without ``out``).

Change (one call)::

    return uva.clone() if out is None else out.copy_(uva, non_blocking=True)        # reference
    return uva.contiguous() if out is None else out.copy_(uva, non_blocking=True)   # bug: "a contiguous copy, no extra allocation when it can"

``contiguous()`` copies only what is not contiguous, and a slot's view of its first ``n`` rows
always is: it returns the view itself. So the "device copy" is the slot's memory (on a CPU
host, a ``NonUvaBuffer`` twin; on CUDA, the UVA view of pinned host memory), and it changes when
the slot is reused ``max_concurrency`` calls later: a result kept across steps (vLLM keeps
``copy_to_gpu`` results for the whole step loop) silently takes another step's values. The
values are right at the call; ``out=`` is unchanged.

Promise broken: h2d_impl/buffer_utils.py ``copy_to_gpu`` docstring: "``copy_to_uva(x)`` then a
device copy: a fresh clone"; docs/contracts.md, pool: "a `copy_to_gpu` result (`out` itself when
given) is the step's data in memory of its own, still equal to it after every later step".

Smallest input: ``p = UvaBufferPool(2, torch.int32, max_concurrency=1); r = p.copy_to_gpu([1, 2]);
p.copy_to_uva([3, 4]); r``.
Reference: ``r == [1, 2]``. Bug: ``r == [3, 4]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def copy_to_gpu(self: Any, x: torch.Tensor | np.ndarray, out: torch.Tensor | None = None) -> torch.Tensor:
    uva = self.copy_to_uva(x)
    return uva.contiguous() if out is None else out.copy_(uva, non_blocking=True)  # BUG (r51 b12): contiguous() for clone()


def target() -> Target:
    f = fork("b12")
    return make_target(
        "b12_pool_gpu_copy_contiguous",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b12", methods={"UvaBufferPool": {"copy_to_gpu": copy_to_gpu}}),
    )
