"""An empty payload short-cuts to ``torch.empty(0, ...)``: the data's zero-size shape is lost.

"Nothing to copy": once validated, a payload without elements returns a fresh empty
tensor without staging. The shortcut builds it as ``torch.empty(0, dtype=..., device=...)``
instead of ``torch.empty(source.shape, ...)``, so ``[[]]`` (shape ``(1, 0)``),
``np.empty((0, 3))`` or ``torch.empty(2, 0, 5)`` come back with shape ``(0,)``. Empty 1-D
data (``[]``) is unaffected. ``out=`` calls keep the reference's path, as does the
CPU-platform variant.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.h2d_impl import _staging, h2d
from h2d_contracts.h2d_impl.h2d import _cuda_device_count, _prepare, _stage, _to_device, pin_memory_available

from ._common import make_target
from ._patch import entry_points


def _async_h2d(
    data: Any,
    device: Any,
    dtype: Any,
    out: torch.Tensor | None,
    *,
    min_block: int = _staging.MIN_BLOCK_BYTES,
    small_max: int = _staging.SMALL_MAX_BYTES,
) -> torch.Tensor:
    """The reference's ``_async_h2d`` with an early return for payloads without elements."""
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)
    if out is None and source.numel() == 0:
        return torch.empty(0, dtype=dtype, device=target)  # BUG: nothing to copy, but the shape is source.shape
    if target.type == "cpu":
        if out is not None:
            return out.copy_(source)
        return _stage(source, dtype, pin=False)
    count = _cuda_device_count()
    if count <= 1 or target.index == torch.cuda.current_device():
        return _to_device(
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max
        )
    with torch.cuda.device(target):
        return _to_device(
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max
        )


assert h2d._async_h2d.__code__.co_argcount == _async_h2d.__code__.co_argcount


def target():
    fn, _ = entry_points(async_h2d=_async_h2d)
    return make_target("b08-empty-result-flattened", fn=fn)
