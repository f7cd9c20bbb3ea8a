"""b08 (CPU): a negative or conjugate view is resolved before a conversion only into the two dtypes the comment names (float16, bool).

Where: ``h2d_impl/h2d.py::_prepare`` (the last step of validation; every entry point, ``dtype=`` and
``out=`` alike).

Change: the resolution, a copy of the whole source, is narrowed to the two torch defects its
comment documents ("torch's copy_ ... drops the negation into float16 ... and cannot write one
into bool"; "resolving for every conversion copies every neg view twice")::

    if dtype is not source.dtype and (source.is_neg() or source.is_conj()):          # reference

    if dtype in (torch.float16, torch.bool) and (source.is_neg() or source.is_conj()):  # bug

torch's ``copy_`` of a negative view has no kernel for more dtypes than the two named: uint16,
uint32, uint64 and every float8 (``NotImplementedError: "neg_cpu" not implemented for 'UInt16'``).
Such a view, the imaginary part of a conjugate (``z.conj().imag``, a common way to get one), now
fails into those dtypes with a bare ``NotImplementedError`` raised by torch, after validation
passed; into float16 and bool, and into the other dtypes, it still converts.

Promise broken: docs/contracts.md, values: "Tensors with the negative or conjugate bit and
ZeroTensors give the values they read as"; h2d_impl/h2d.py ``async_tensor_h2d``: "data: ... a CPU
``torch.Tensor`` in any strided layout" and "Raises: TypeError ... ValueError ..." (a valid call
raises nothing, and never a bare torch error).

Smallest input: ``z = torch.tensor([1 - 2j]); async_tensor_h2d(z.conj().imag, dtype=torch.uint16, device='cpu')``.
Reference: ``tensor([2], dtype=torch.uint16)``.
Bug: ``NotImplementedError: "neg_cpu" not implemented for 'UInt16'`` (also ``dtype=torch.float8_e4m3fn``).
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with one condition changed; every other name resolves in the forked module.
# ruff: noqa: F821


def _prepare(
    data: Any, device: Any, dtype: Any, out: Any, *, cpu_only: bool
) -> tuple[torch.Tensor, torch.dtype, torch.device]:
    """Validate every argument and return (source, target dtype, target device)."""
    check_dtype_arg(dtype)
    if out is not None:
        _check_out(out)
    if device is None and out is None:
        raise TypeError("a target is required: pass device=... or out=... (got neither)")
    target: torch.device = _resolve_device(device) if device is not None else None  # type: ignore[assignment]
    if out is not None:
        out_device = out.device
        if target is not None and target != out_device:
            raise ValueError(f"device={target} disagrees with out.device={out_device}")
        target = out_device
        if dtype is not None and dtype != out.dtype:
            raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}; it is never converted silently")
        dtype = out.dtype
    if cpu_only and target.type != "cpu":
        where = f"device={target}" if out is None else f"out.device={target}"
        raise ValueError(f"the CPU-platform variant only targets host memory, got {where}")
    if target.type not in ("cpu", "cuda"):
        raise ValueError(f"out.device={target} is not supported: the target must be 'cpu' or a CUDA device")
    source, own_dtype = as_source_tensor(data, infer_dtype=dtype is None)
    dtype = own_dtype if dtype is None else dtype
    if out is not None and tuple(out.shape) != tuple(source.shape):
        raise ValueError(
            f"out.shape={tuple(out.shape)} but data has shape {tuple(source.shape)}; "
            "out is never broadcast or truncated"
        )
    if out is not None and not (isinstance(data, torch.Tensor) and out is data) and _shares_memory(source, out):
        raise ValueError("out shares memory with data; copy data first or pass another out")
    check_representable(source, dtype)
    # torch's copy_ of a neg view drops the negation into float16 and cannot write one into bool:
    # resolve (a copy of the whole source) for those two only
    if dtype in (torch.float16, torch.bool) and (source.is_neg() or source.is_conj()):  # BUG (r55 b08): narrowed
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


def target() -> Target:
    f = fork("b08", h2d={"_prepare": _prepare})
    return make_target(
        "b08_lazy_bits_resolved_for_named_dtypes",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b08"),
    )
