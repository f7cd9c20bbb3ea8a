"""b03 (CPU): ``UvaBufferPool.copy_to_gpu(x, out=...)`` with a host ``out`` copies ``x`` straight into ``out``, skipping the slot.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_gpu``.

Change: an optimisation for host targets ("on a CPU platform ``out`` is already host memory: the
hop through a slot is a second host copy")::

    uva = self.copy_to_uva(x)                                                    # reference
    return uva.clone() if out is None else out.copy_(uva, non_blocking=True)

    if out is not None and out.device.type == "cpu":                            # bug
        return out.copy_(torch.as_tensor(x), non_blocking=True)
    uva = self.copy_to_uva(x)
    return uva.clone() if out is None else out.copy_(uva, non_blocking=True)

Without ``out``, or with a device ``out``, nothing changes, and in-range steps give the same
values either way. With a host ``out`` the step no longer goes through the pool: nothing checks
it (a tuple, rows of another shape broadcast by ``copy_``), and a list is converted by
``torch.as_tensor`` (int64 for ints) and then cast by ``copy_``: an int the pool's dtype cannot
hold is written wrapped instead of refused.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool.copy_to_gpu``: "``copy_to_uva(x)`` then a
device copy: a fresh clone, or ``out.copy_(view, non_blocking=True)``"; docs/contracts.md, pool:
"a list holding an int past the pool's integer dtype is refused, never written wrapped" and "Each
step is sent by a drawn method: ``copy_to_uva(x)``, ``copy_to_gpu(x)`` or ``copy_to_gpu(x, out=out)``".

Smallest input: ``UvaBufferPool(1, torch.int32).copy_to_gpu([2**40], out=torch.zeros(1, dtype=torch.int32))``.
Reference: ``OverflowError: Python integer 1099511627776 out of bounds for int32``. Bug: ``tensor([0], dtype=torch.int32)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def copy_to_gpu(self: Any, x: torch.Tensor | np.ndarray, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is not None and out.device.type == "cpu":  # BUG (r54 b03): a host `out` bypasses the slot
        return out.copy_(torch.as_tensor(x), non_blocking=True)
    uva = self.copy_to_uva(x)
    return uva.clone() if out is None else out.copy_(uva, non_blocking=True)


def target() -> Target:
    f = fork("b03")
    return make_target(
        "b03_pool_host_out_skips_slot",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03", methods={"UvaBufferPool": {"copy_to_gpu": copy_to_gpu}}),
    )
