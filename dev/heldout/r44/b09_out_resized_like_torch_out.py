"""b09 (CPU): an ``out`` of another shape is resized in place (torch's ``out=`` convention) instead of refused.

Where: ``h2d._prepare`` (the shared validation of the main function and the
CPU-platform variant), the ``out.shape`` check.

The change::

    if out is not None and tuple(out.shape) != tuple(source.shape):
        raise ValueError("out.shape=... but data has shape ...; out is never broadcast or truncated")
    ->
    if out is not None and tuple(out.shape) != tuple(source.shape):
        out.resize_(source.shape)

Why an engineer writes it: torch's own ``out=`` arguments work this way (``torch.add(a,
b, out=t)`` resizes ``t`` to the result's shape), and an engine that reuses one scratch
``out`` for batches of varying size "just works". But the caller's tensor changes shape
(and storage, when it grows), a wrong-size ``out`` is never reported, and a call refused
*after* this point (overlap, range) leaves ``out`` already resized: not "nothing written".

Promise broken: docs/reference.md *out*: "exactly the data's shape, never broadcast";
``async_tensor_h2d`` docstring: "out ... of shape exactly ``S``", Raises "ValueError:
``out.shape`` different from the data's shape (broadcastable shapes included)" and "On
any exception nothing has been written: ``out`` is untouched"; README ``out``: "any other
shape (broadcastable ones too) raises ``ValueError``, ``out`` untouched".

Smallest input: ``async_tensor_h2d([7], out=torch.tensor([9, 9, 9, 9]))``.
Reference: ``ValueError: out.shape=(4,) but data has shape (1,)``, ``out`` still
``[9, 9, 9, 9]``. Bug: returns ``out``, resized in place to ``tensor([7])``. And
``async_tensor_h2d([-1], dtype=torch.uint8, out=torch.zeros(3, dtype=torch.uint8))``:
reference ``ValueError`` (shape), ``out`` untouched; bug ``ValueError`` (``-1`` out of
range for uint8) raised after ``out`` was resized to shape ``(1,)``: a refused call that
changed ``out``.
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
        if dtype is not None and dtype != out.dtype:
            raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}; it is never converted silently")
        dtype = out.dtype
    if cpu_only and target.type != "cpu":
        where = f"device={target}" if out is None else f"out.device={target}"  # the argument at fault
        raise ValueError(f"the CPU-platform variant only targets host memory, got {where}")
    if target.type not in ("cpu", "cuda"):
        raise ValueError(f"out.device={target} is not supported: the target must be 'cpu' or a CUDA device")
    source, own_dtype = as_source_tensor(data, infer_dtype=dtype is None)
    dtype = own_dtype if dtype is None else dtype
    if out is not None and tuple(out.shape) != tuple(source.shape):
        # BUG: torch's out= convention (the result's shape wins) instead of the ValueError
        out.resize_(source.shape)
    if out is not None and not (isinstance(data, torch.Tensor) and out is data) and _shares_memory(source, out):
        raise ValueError("out shares memory with data; copy data first or pass another out")
    check_representable(source, dtype)
    if dtype is torch.bool and (source.is_neg() or source.is_conj()):
        # torch's copy_ cannot write a view with the negative (or conjugate) bit into bool ("neg_cpu not
        # implemented for 'Bool'"); the values are the resolved view's (Tensor.to(torch.bool) reads it so too)
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


def _fork() -> Fork:
    return fork("b09", h2d={"_prepare": _prepare})


def target() -> Target:
    f = _fork()
    return make_target(
        "b09_out_resized_like_torch_out",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b09"),
    )
