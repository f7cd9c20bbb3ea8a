"""b16 (CPU): ``_prepare`` range-checks the float64 list before the exact-int rebuild, so ints near int64's ends beside a float are refused.

Where: ``h2d_impl/h2d.py::_prepare`` (lists and tuples into an integer dtype, every entry point).

Change: validation hoisted ("check first, then rebuild: the rebuild is the rare path and needs no values the
check would refuse")::

    if source.dtype == torch.float64 and isinstance(data, (list, tuple)) and not (...):      # reference
        exact = exact_integer_list(data, source)
        source = source if exact is None else exact
    check_representable(source, dtype)

    check_representable(source, dtype)                                                      # bug
    if source.dtype == torch.float64 and isinstance(data, (list, tuple)) and not (...):
        exact = exact_integer_list(data, source)
        source = source if exact is None else exact

Before the rebuild the source is numpy's float64 array of the list, whose ints are rounded: ``2**63 - 1`` is
``2.0**63``, past int64's maximum. The check then refuses a list the reference converts exactly: every int of
int64's range whose float64 image rounds to ``2**63`` (``2**63 - 512`` to ``2**63 - 1``), beside a float. Lists of
ints alone are unaffected (numpy builds them as int64), and so are ints whose float64 image stays in range (the
rebuild then only restores their low bits).

Promise broken: docs/reference.md, What it promises: "Ints below 2**63 beside floats, into an integer dtype, are kept
exactly (``[2**53 + 1, 0.5]`` into int64 is ``[2**53 + 1, 0]``, as ``torch.tensor`` gives), though numpy builds such a
list as float64"; h2d_impl/_host.py ``check_representable``: "integer -> narrower integer: every value must lie in the
target's range" (``2**63 - 1`` lies in int64's).

Smallest input: ``async_tensor_h2d([2**63 - 1, 0.5], dtype=torch.int64, device='cpu')``.
Reference: ``tensor([9223372036854775807, 0])``. Bug: ``ValueError: data[0] = 9.223372036854776e+18 is out of range
for torch.int64 [-9223372036854775808, 9223372036854775807]``.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: check_dtype_arg, _check_out, _resolve_device, as_source_tensor, ...)


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
    check_representable(source, dtype)  # BUG (r58 b16): checks numpy's rounded float64 ints, before the exact rebuild
    if (
        source.dtype == torch.float64
        and isinstance(data, (list, tuple))
        and not (dtype.is_floating_point or dtype.is_complex or dtype == torch.bool)
    ):
        exact = exact_integer_list(data, source)
        source = source if exact is None else exact
    if dtype is not source.dtype and (source.is_neg() or source.is_conj()):
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


def target() -> Target:
    f = fork("b16", h2d={"_prepare": _prepare})
    return make_target(
        "b16_range_check_before_exact_ints",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b16"),
    )
