"""b08 (CPU): the CPU-platform variant's refusal of a device target names ``device=`` even when only ``out`` was given.

Where: ``h2d_impl/h2d.py::_prepare`` (the ``cpu_only`` refusal; ``async_tensor_h2d_cpu``).

Change: the message's conditional "simplified" away ("the target is the device")::

    where = f"device={target}" if out is None else f"out.device={target}"    # reference
    where = f"device={target}"                                               # bug

The exception type and the refusal are unchanged (``ValueError``, nothing written). Only the
argument the message blames changes: with ``out`` on a non-host device and no ``device``, the
message names ``device=``, an argument the caller never passed.

Promise broken: h2d_impl/_host.py module docstring: "Errors name the argument and echo the
offending input"; h2d_impl/h2d.py ``_prepare`` comment "the argument at fault";
``async_tensor_h2d_cpu``: "ValueError for a non-CPU target" (the target given by ``out``).

Smallest input: ``async_tensor_h2d_cpu([1], out=torch.zeros(1, dtype=torch.int64, device='meta'))``.
Reference: ``ValueError: the CPU-platform variant only targets host memory, got out.device=meta``.
Bug: ``ValueError: the CPU-platform variant only targets host memory, got device=meta``.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with one line changed; every other name resolves in the forked module.
# ruff: noqa: F821


def _prepare(
    data: Any, device: Any, dtype: Any, out: Any, *, cpu_only: bool
) -> tuple[torch.Tensor, torch.dtype, torch.device]:
    check_dtype_arg(dtype)
    if out is not None:
        _check_out(out)
    if device is None and out is None:
        raise TypeError("a target is required: pass device=... or out=... (got neither)")
    # None only when out is given (neither raised above), and then out.device replaces it below: mypy cannot
    # follow that; an ignore, not a cast, because a cast is a call on every copy's path
    target: torch.device = _resolve_device(device) if device is not None else None  # type: ignore[assignment]
    if out is not None:
        out_device = out.device  # a CUDA tensor's device always carries its index
        if target is not None and target != out_device:
            raise ValueError(f"device={target} disagrees with out.device={out_device}")
        target = out_device
        if dtype is not None and dtype != out.dtype:
            raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}; it is never converted silently")
        dtype = out.dtype
    if cpu_only and target.type != "cpu":
        where = f"device={target}"  # BUG (r53 b08): names device= also when the target came from out
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
    if dtype is not source.dtype and (source.is_neg() or source.is_conj()):
        # torch's copy_ of a view with the negative bit into another dtype drops the negation into float16
        # ([-1.5] became [1.5] with torch 2.13; Tensor.to reads it right) and cannot write one into bool
        # ("neg_cpu not implemented for 'Bool'"): a conversion copies the resolved view (held-out round r51)
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


def target() -> Target:
    f = fork("b08", h2d={"_prepare": _prepare})
    return make_target(
        "b08_cpu_variant_refusal_names_device",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b08"),
    )
