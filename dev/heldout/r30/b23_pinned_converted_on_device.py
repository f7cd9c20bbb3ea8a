"""GPU only: a pinned tensor that needs a dtype conversion is DMA'd as it is and converted on the device.

"Already pinned: no host pass, convert on the GPU" (vLLM's behaviour): a contiguous pinned
tensor whose dtype differs from the target dtype is copied with ``non_blocking=True``
from its own memory and converted with ``.to(dtype)`` on the device. The documented
zero-copy hazard is for a pinned input *of the target dtype* only; a pinned input that needs a
conversion is staged (a snapshot), so the caller may overwrite it as soon as the call
returns. Here an overwrite right after the call, while the stream is busy, reaches the
device. Scenario: ``p = torch.arange(65536, dtype=torch.int32).pin_memory()``; 50 ms of
work queued on the current stream; ``r = async_tensor_h2d(p, device="cuda",
dtype=torch.int64)``; ``p.fill_(-1)``; synchronise: ``r`` is all -1.
"""

from __future__ import annotations

import torch

from h2d_contracts.h2d_impl import h2d

from ._common import make_target
from ._patch import entry_points

_reference_to_device = h2d._to_device


def _to_device(data, source, dtype, target, out, *, pin, **knobs):
    if (
        isinstance(data, torch.Tensor)
        and source.dtype != dtype
        and source.is_contiguous()
        and not source.is_conj()
        and not source.is_neg()
        and source.is_pinned()
    ):
        # BUG: no snapshot: the DMA reads the caller's pinned memory later, the conversion runs on the device
        moved = source.to(target, non_blocking=True)
        return out.copy_(moved) if out is not None else moved.to(dtype)
    return _reference_to_device(data, source, dtype, target, out, pin=pin, **knobs)


def target():
    fn, _ = entry_points(to_device=_to_device)
    return make_target("b23-pinned-converted-on-device", fn=fn, notes="GPU only")
