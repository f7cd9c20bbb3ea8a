"""Mutants that break the out contract: each the reference with one realistic bug."""

from __future__ import annotations

from typing import Any

import torch
from h2d_contracts.h2d_impl import _host as H  # noqa: PLC2701 - a mutant is the reference with one change: white-box
from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import mutant, reference_target


@mutant(killed_by=("out",))
def broadcast_into_out() -> Target:
    """out accepts a broadcastable shape: `out.copy_(src)` broadcasts [1] into a (4,) buffer (vLLM model, no shape check)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        try:
            return R.async_tensor_h2d(data, device, dtype, out)
        except ValueError as exc:
            if out is None or "out.shape" not in str(exc):
                raise
            source, _ = H.as_source_tensor(data)
            return out.copy_(source.to(out.dtype))

    return reference_target("broadcast_into_out", fn)


@mutant(killed_by=("out",), needs="cuda")
def zero_copy_ignores_out() -> Target:
    """a pinned dense tensor of out's dtype (the zero-copy path) is DMA'd into a new tensor; out is neither written
    nor returned (mutmut ``_to_device`` 11: ``if out is not None`` became ``... and False``)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is not None and isinstance(data, torch.Tensor):
            source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
            if target.type == "cuda" and R._zero_copy_ok(data, source, dtype_):
                return source.to(target, non_blocking=True).contiguous()
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("zero_copy_ignores_out", fn)
