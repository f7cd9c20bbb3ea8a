"""Mutants that break the concurrency, hygiene contracts: each the reference with one realistic bug."""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import mutant, reference_target

_SCRATCH: dict[str, torch.Tensor] = {}


_KEPT: list[torch.Tensor] = []


_IN_FLIGHT: list[torch.Tensor] = []


@mutant(killed_by=("concurrency",))
def shared_scratch_buffer() -> Target:
    """the host path reuses one module-level scratch tensor with no lock: concurrent callers read each other's data."""

    return reference_target("shared_scratch_buffer", scratch_staged)


def scratch_staged(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
    """The reference's validation, then staging through one module-level scratch tensor with no lock (shared by every
    caller and thread), a blocking copy from it."""
    source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
    nbytes = source.numel() * dtype_.itemsize
    scratch = _SCRATCH.get("buf")
    if scratch is None or scratch.numel() < nbytes:
        scratch = _SCRATCH["buf"] = torch.empty(max(nbytes, 1 << 16), dtype=torch.uint8)
    staging = scratch[:nbytes].view(dtype_).view(source.shape)
    staging.copy_(source)
    result = staging.to(target, non_blocking=False, copy=True)
    return out.copy_(result) if out is not None else result


@mutant(killed_by=("hygiene",), needs="cuda")
def results_kept_alive() -> Target:
    """a debugging cache left in: every result is appended to a module-level list, so device memory grows per call."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        result = R.async_tensor_h2d(data, device, dtype, out)
        _KEPT.append(result)
        return result

    return reference_target("results_kept_alive", fn)


@mutant(killed_by=("hygiene",), needs="cuda")
def staging_blocks_never_released() -> Target:
    """the list that keeps each call's pinned staging block alive until its copy completes is never pruned: pinned host
    memory still referenced grows by one block per call (a fixed 4 KiB block here, as a staging ring's bookkeeping would hold)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        result = R.async_tensor_h2d(data, device, dtype, out)
        if result.device.type == "cuda":
            _IN_FLIGHT.append(torch.empty(4096, dtype=torch.uint8, pin_memory=True))
        return result

    return reference_target("staging_blocks_never_released", fn)
