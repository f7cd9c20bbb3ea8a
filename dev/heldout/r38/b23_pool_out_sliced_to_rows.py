"""b23 (CPU-visible, buffer_utils.py ``UvaBufferPool.copy_to_gpu``): ``out`` is written through ``out[:n]`` and that view returned.

What changed: ``out.copy_(uva, non_blocking=True)`` became
``out[: uva.shape[0]].copy_(uva, non_blocking=True)``.

Why an engineer would write it: engines pass persistent device buffers with more rows than
this step has ("write the step's rows into the head of the persistent buffer"). With an
``out`` of exactly the step's shape the same bytes are written, but the method now returns a
new view object instead of ``out``; with a larger ``out`` it silently writes a prefix where
the reference raises (torch's shape check).

Promise broken: "``copy_to_uva(x)`` then a device copy: a fresh clone, or
``out.copy_(view, non_blocking=True)``" (docstring: the result is ``out``); contracts.md pool:
"a ``copy_to_gpu`` result (``out`` itself when given) is the step's data in memory of its own";
docs/reference.md "`out`: exactly the data's shape, never broadcast" (the helpers' shared rule).

Smallest input: ``o = torch.zeros(2, dtype=torch.int32); UvaBufferPool(4, torch.int32).copy_to_gpu([1, 2], out=o) is o``.
Reference: ``True``. Bug: ``False`` (and with ``o = torch.zeros(4, ...)``: reference
``RuntimeError`` (size mismatch), bug writes ``[1, 2, 0, 0]``).
"""

from __future__ import annotations

import numpy as np
import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer_utils as _bu

from ._common import buffer_utils_ns, fork, make_target


class BuggyUvaBufferPool(_bu.UvaBufferPool):
    def copy_to_gpu(self, x: torch.Tensor | np.ndarray, out: torch.Tensor | None = None) -> torch.Tensor:
        """``copy_to_uva(x)`` then a device copy: a fresh clone, or ``out.copy_(view, non_blocking=True)``."""
        uva = self.copy_to_uva(x)
        # BUG: writes (and returns) the head view out[:n], not out itself
        return uva.clone() if out is None else out[: uva.shape[0]].copy_(uva, non_blocking=True)


def target() -> Target:
    f = fork("b23")
    return make_target(
        "b23_pool_out_sliced_to_rows",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(UvaBufferPool=BuggyUvaBufferPool),
    )
