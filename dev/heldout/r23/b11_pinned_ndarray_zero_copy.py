"""b11: an ndarray that lives in pinned memory is DMA'd in place instead of staged.

Engine pattern: ``async_tensor_h2d(buf.np[:n], ...)`` with ``buf.np`` the numpy view of a
pinned ``CpuGpuBuffer.cpu`` (input ids, positions), refilled for step k+1 right after
the call. Fault: the zero-copy test accepts any source whose memory is pinned ("already
pinned: no staging copy"), ndarrays included, where the reference reads in place only
pinned *tensors* (the documented hazard); README: every other source, arrays included,
may be overwritten as soon as the call returns. With the copy queued behind busy GPU work,
the refill lands in the result.
Invisible on the host: nothing is pinned for a host target (and it takes the host path).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch


from ._common import make_h2d, make_target, make_to_device

if TYPE_CHECKING:
    from h2d_contracts.contracts import Target


def _zero_copy_ok(data: Any, source: torch.Tensor, dtype: torch.dtype) -> bool:
    return (
        isinstance(data, (torch.Tensor, np.ndarray))  # FAULT: the reference: isinstance(data, torch.Tensor)
        and source.dtype == dtype
        and not source.is_conj()
        and not source.is_neg()
        and source.is_pinned()
    )


async_tensor_h2d = make_h2d(make_to_device(zero_copy_ok=_zero_copy_ok))


def target() -> Target:
    return make_target("r23-b11-pinned-ndarray-zero-copy", fn=async_tensor_h2d,
                       notes="ndarrays over pinned memory are read in place (no snapshot)")
