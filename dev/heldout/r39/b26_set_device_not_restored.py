"""b26 (GPU-only, two GPUs, h2d.py ``_async_h2d``): a call aimed at a device other than the current one switches with ``torch.cuda.set_device(target)`` instead of the ``torch.cuda.device(target)`` context: the caller's current device is left changed after the call.

What changed: ``with torch.cuda.device(target): return _to_device(...)`` became
``torch.cuda.set_device(target); return _to_device(...)``.

Why an engineer would write it: the context manager costs two device switches per call
(one back), the comment above it explains the switch is only there so that pinned
staging is allocated through the target's context, and a worker that sends to
``cuda:1`` usually keeps sending to ``cuda:1``: "switch once and stay" reads as an
optimisation. The caller's current device (and with it every later bare ``"cuda"``,
``torch.cuda.current_stream()``, new tensors on ``"cuda"``) silently moves.

Promise broken: docs/reference.md, Calling contexts: "Process-wide state: a call changes
none (contract ``side-effects``)"; docs/contracts.md side-effects: "... the current CUDA
device and stream (where CUDA is initialised)"; stream: "``cuda:1`` honoured while
``cuda:0`` is current" (the next bare ``"cuda"`` call then goes to ``cuda:1``).

Smallest input (two GPUs): ``torch.cuda.set_device(0); async_tensor_h2d([1],
device='cuda:1'); torch.cuda.current_device()``; then
``async_tensor_h2d([1], device='cuda').device``.

Reference result: ``0``; the bare ``"cuda"`` call lands on ``cuda:0``.
Bug result: ``1``; the bare ``"cuda"`` call lands on ``cuda:1``.
With one GPU the branch is never taken (the target is always the current device); on a
CPU-only host neither.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._common import buffer_utils_ns, fork, make_target


def _async_h2d(
    data: Any,
    device: Any,
    dtype: Any,
    out: torch.Tensor | None,
    *,
    min_block: int = _staging.MIN_BLOCK_BYTES,
    small_max: int = _staging.SMALL_MAX_BYTES,
) -> torch.Tensor:
    """:func:`async_tensor_h2d` with the staging knobs exposed (smallest block, small-payload threshold)."""
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)
    if target.type == "cpu":
        if out is not None:
            return out.copy_(source)  # the caller's tensor: torch's copy_ (autograd's version counter, subclasses)
        return _stage(source, dtype, pin=False)
    count = _cuda_device_count()
    if count <= 1 or target.index == torch.cuda.current_device():
        return _to_device(
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max
        )
    # BUG: was `with torch.cuda.device(target):` around the call ("switch once and stay": the device is not restored)
    torch.cuda.set_device(target)
    return _to_device(
        data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max
    )


def target() -> Target:
    f = fork("b26", h2d={"_async_h2d": _async_h2d})
    return make_target(
        "b26_set_device_not_restored",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
