"""b08 (CPU): ``device`` is compared with ``out.device`` by identity, so every agreeing pair is refused.

Where: ``h2d._prepare`` (the shared validation of the main function and the
CPU-platform variant), the ``device`` / ``out.device`` agreement check.

The change::

    if target is not None and target != out_device:
    ->
    if target is not None and target is not out_device:

Why an engineer writes it: ``_resolve_device`` hands back cached ``torch.device``
objects (``_CPU`` for every host spelling, ``_RESOLVED`` for the rest), so an identity
test looks like a cheaper equality on the hot path. ``out.device`` is a new
``torch.device`` object on every access, never the cached one: the test is true for
every call that passes both ``device`` and ``out``, however they agree.

Promise broken: docs/reference.md *device*: "it must agree with ``out.device``" (agreeing
is allowed); ``async_tensor_h2d`` docstring: "``device`` ... Required unless ``out`` is
given; if both are given they must agree"; README ``values``/``out`` (valid calls return
``out``); docs/contracts.md calling context ``positional`` (vLLM's call sites pass both).

Smallest input: ``async_tensor_h2d([1], device="cpu", out=torch.zeros(1, dtype=torch.int64))``.
Reference: returns ``out``, now ``tensor([1])``. Bug: ``ValueError: device=cpu disagrees
with out.device=cpu``.
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
        if target is not None and target is not out_device:  # BUG: identity instead of equality
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
    return fork("b08", h2d={"_prepare": _prepare})


def target() -> Target:
    f = _fork()
    return make_target(
        "b08_out_device_identity",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b08"),
    )
