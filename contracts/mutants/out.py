"""Mutants that break the out contract: each the reference with one realistic bug."""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.h2d_impl import _host as H  # a mutant is the reference with one change: white-box
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


@mutant(killed_by=("out",))
def out_written_through_data() -> Target:
    """``out`` written through ``out.data.copy_(...)`` ("no autograd bookkeeping on the hot path"): the right values, but
    the version counter does not move, so a backward that saved ``out`` silently uses the new values instead of raising."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is None:
            return R.async_tensor_h2d(data, device, dtype, out)
        staged = R.async_tensor_h2d(data, out.device, out.dtype if dtype is None else dtype)
        if staged.shape != out.shape:
            return R.async_tensor_h2d(data, device, dtype, out)  # the reference's refusal
        out.data.copy_(staged)
        return out

    return reference_target("out_written_through_data", fn)


@mutant(killed_by=("bad-input",))
def inference_out_checked_only_with_grad() -> Target:
    """the inference-``out`` check is written for the grad-enabled case (``out.is_inference() and
    torch.is_grad_enabled()``): under ``torch.no_grad()`` an inference ``out`` passes it and torch's ``copy_`` then raises
    RuntimeError, not the documented ValueError naming ``out``."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if (
            out is not None
            and out.is_inference()
            and not torch.is_inference_mode_enabled()
            and not torch.is_grad_enabled()
        ):
            source, _ = H.as_source_tensor(data)
            return out.copy_(source.to(out.dtype))  # the check was skipped: torch refuses the in-place update
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("inference_out_checked_only_with_grad", fn)


@mutant(killed_by=("values",))
def list_built_on_the_default_device() -> Target:
    """a list is built with ``torch.tensor(data, dtype=...)`` and no ``device=`` (as SGLang does): under a default device
    (``with torch.device(...)``) the host tensor is built there, and the copy of a meta tensor fails."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, list) and data and all(type(v) is int for v in data):
            data = torch.tensor(data, dtype=dtype if dtype is not None else out.dtype if out is not None else None)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("list_built_on_the_default_device", fn)
