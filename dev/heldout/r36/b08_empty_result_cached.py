"""Empty results are handed out from a cache: every empty call returns the same tensor.

What changed: ``h2d._async_h2d`` made a new tensor for every call. The change returns one
cached empty tensor per (shape, dtype, device) when the data has no elements: "empty
batches (an idle decode step, a request with no new blocks) are frequent; an empty tensor
holds no data, so one instance can serve them all".

Why an engineer writes it: an empty tensor looks immutable (there is nothing to write),
and the change removes an allocation and a pool round-trip from the idle path.

Promise broken: ``async_tensor_h2d``'s Returns ("out itself if given, else a *new*
contiguous tensor") and contracts "sequence" (every result is a new object, no result is
the same object as an earlier one, and no later call changes a result already returned).
Tensors are mutable in their metadata too: a caller that ``resize_``s, ``set_``s or marks its
empty result (``requires_grad_``) changes what every later empty call returns.

Smallest input: ``a = async_tensor_h2d([], device="cpu"); b = async_tensor_h2d([],
device="cpu")``: reference ``a is b`` is False; bug ``a is b`` is True (and after
``a.resize_(2)``, a third empty call returns a tensor of shape (2,)).
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._common import fork, fork_target


def _async_h2d(
    data: Any,
    device: Any,
    dtype: Any,
    out: torch.Tensor | None,
    *,
    min_block: int = _staging.MIN_BLOCK_BYTES,
    small_max: int = _staging.SMALL_MAX_BYTES,
) -> torch.Tensor:
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)  # noqa: F821
    if out is None and source.numel() == 0:
        # BUG: one cached empty tensor per (shape, dtype, device) serves every empty call
        key = (tuple(source.shape), dtype, target)
        hit = _EMPTY_RESULTS.get(key)  # noqa: F821
        if hit is None:
            hit = _EMPTY_RESULTS[key] = torch.empty(source.shape, dtype=dtype, device=target)  # noqa: F821
        return hit
    if target.type == "cpu":
        if out is not None:
            return out.copy_(source)
        return _stage(source, dtype, pin=False)  # noqa: F821
    count = _cuda_device_count()  # noqa: F821
    if count <= 1 or target.index == torch.cuda.current_device():
        return _to_device(  # noqa: F821
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max  # noqa: F821
        )
    with torch.cuda.device(target):
        return _to_device(  # noqa: F821
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max  # noqa: F821
        )


def target() -> Target:
    return fork_target(
        "b08_empty_result_cached",
        fork("b08", h2d={"_async_h2d": _async_h2d, "_EMPTY_RESULTS": {}}),
        variant=False,
    )
