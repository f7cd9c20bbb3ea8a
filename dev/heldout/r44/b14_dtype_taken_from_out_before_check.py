"""b14 (CPU): ``dtype = out.dtype`` is moved above the mismatch check, so a disagreeing ``dtype`` is silently dropped.

Where: ``h2d._prepare`` (the shared validation of the main function and the
CPU-platform variant), the ``dtype`` / ``out.dtype`` agreement.

The change: two statements swapped::

    if dtype is not None and dtype != out.dtype:
        raise TypeError("dtype=... disagrees with out.dtype=...; it is never converted silently")
    dtype = out.dtype
    ->
    dtype = out.dtype
    if dtype is not None and dtype != out.dtype:
        raise TypeError(...)

Why an engineer writes it: a tidy-up groups "take the target from ``out``" (``target =
out_device``, ``dtype = out.dtype``) before the checks; the check below still reads
right in isolation, but compares ``out.dtype`` with itself and can never fire. The data
is then converted into ``out``'s dtype, the very silent conversion the message promises
never happens.

Promise broken: README ``dtype``: "``dtype`` disagreeing with ``out`` raises
``TypeError``"; docs/reference.md "Where it differs from vLLM" (``dtype`` disagreeing with
``out.dtype``: ``TypeError``); ``async_tensor_h2d`` docstring, Raises "TypeError: ...
``dtype`` disagreeing with ``out.dtype``" and "On any exception nothing has been written";
bad-input kind ``dtype-mismatch-out``.

Smallest input: ``async_tensor_h2d([1.5], dtype=torch.float64, out=torch.zeros(1, dtype=torch.int32))``.
Reference: ``TypeError: dtype=torch.float64 disagrees with out.dtype=torch.int32``, ``out``
untouched. Bug: returns ``out``, written: ``tensor([1], dtype=torch.int32)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target

# flake8: noqa: F821  (the function below resolves the reference's names in the fork)

def _prepare(
    data: Any, device: Any, dtype: Any, out: Any, *, cpu_only: bool
) -> tuple[torch.Tensor, torch.dtype, torch.device]:
    """Validate every argument and return (source, target dtype, target device)."""
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
        dtype = out.dtype  # BUG: moved up beside target = out_device ("take both from out first")
        if dtype is not None and dtype != out.dtype:
            raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}; it is never converted silently")
    if cpu_only and target.type != "cpu":
        where = f"device={target}" if out is None else f"out.device={target}"  # the argument at fault
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
    if dtype is torch.bool and (source.is_neg() or source.is_conj()):
        # torch's copy_ cannot write a view with the negative (or conjugate) bit into bool ("neg_cpu not
        # implemented for 'Bool'"); the values are the resolved view's (Tensor.to(torch.bool) reads it so too)
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


def _fork() -> Fork:
    return fork("b14", h2d={"_prepare": _prepare})


def target() -> Target:
    f = _fork()
    return make_target(
        "b14_dtype_taken_from_out_before_check",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b14"),
    )
