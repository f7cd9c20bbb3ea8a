"""b13 (CPU-visible): a host ``out`` adopts the staged result's storage instead of being written.

Where: ``h2d_impl/h2d.py``, ``_async_h2d`` (host-target branch with ``out``).

Change: ``return out.copy_(source)`` -> ``return out.set_(_stage(source, dtype, pin=False))``.

Why plausible: "``_stage`` already makes a fresh, contiguous, converted host tensor; point
``out`` at it instead of a second element-wise copy" (``set_`` is O(1), bumps the version
counter, keeps the ``out`` object). But ``out`` is then no longer a view of the memory the
caller gave: a slice of a persistent buffer (the common case: ``out=buf[:n]``) is detached
from it, the buffer is never written, and ``out``'s strides and address change.

Promise broken: ``async_tensor_h2d`` docstring: "out: ... It is written in place
(non-contiguous strides included) and returned"; README out: "writes exactly its
elements"; docs/contracts.md buffer/step-loop: persistent tensors stay at "the same
addresses (engines and captured CUDA graphs hold them)".

Smallest input: ``base = torch.zeros(4, dtype=torch.int64); out = base[:2];
async_tensor_h2d([1, 2], out=out)``.
Reference: ``base == tensor([1, 2, 0, 0])``; ``out.data_ptr() == base.data_ptr()``.
Bug: ``base == tensor([0, 0, 0, 0])``; ``out`` reads ``[1, 2]`` from new memory
(``out.data_ptr() != base.data_ptr()``); a strided ``out`` (``base[::2]``) becomes contiguous.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


def _async_h2d(
    data: Any,
    device: Any,
    dtype: Any,
    out: torch.Tensor | None,
    *,
    min_block: int = 0,
    small_max: int = 0,
) -> torch.Tensor:
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)  # noqa: F821
    if target.type == "cpu":
        if out is not None:
            return out.set_(_stage(source, dtype, pin=False))  # noqa: F821  BUG: storage swapped, out not written
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


def _fork() -> Fork:
    from h2d_contracts.h2d_impl import _staging

    fn = _async_h2d
    # the reference's keyword defaults (the staging module's constants)
    fn.__kwdefaults__ = {"min_block": _staging.MIN_BLOCK_BYTES, "small_max": _staging.SMALL_MAX_BYTES}
    return fork("b13", h2d={"_async_h2d": fn})


def target() -> Target:
    return fork_target_full("b13_out_storage_swapped", _fork())
