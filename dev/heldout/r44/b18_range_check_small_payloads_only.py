"""b18 (CPU): the per-element range check is skipped for payloads of more than 65,536 elements.

Where: ``h2d._prepare`` (the shared validation of the main function and the
CPU-platform variant), around ``check_representable``; a new module constant
``RANGE_CHECK_MAX_ELEMENTS = 1 << 16`` in ``h2d``.

The change::

    check_representable(source, dtype)
    ->
    if source.numel() <= RANGE_CHECK_MAX_ELEMENTS:
        check_representable(source, dtype)

Why an engineer writes it: the range check is a full pass over the data (a float64
widening, ``isfinite``, ``trunc`` and three comparisons per element) that the profile
shows on bulk conversions such as int64 block tables into int32; engines never send
out-of-range ids, so the pass is "only worth it for small, hand-built inputs". Above the
threshold NaN, infinities and out-of-range values are converted by ``copy_``: they wrap or
become garbage silently (and the complex-to-real refusal of the same function is
skipped too: torch's ``copy_`` drops the imaginary part with a warning).

Promise broken: docs/reference.md *Integer targets*: "Refused with ``ValueError``: NaN,
inf, a float whose truncated value lies outside the dtype's range ..., and an integer
outside it"; ``async_tensor_h2d`` docstring, Raises "ValueError: ... NaN/inf or
out-of-range values for an integer dtype"; README ``bad-input`` (``nan-to-int``,
``out-of-range-int``, ...) and ``values`` ("at every size").

Smallest input: ``async_tensor_h2d(np.full(65537, -1, dtype=np.int64), dtype=torch.uint8, device="cpu")``.
Reference: ``ValueError: data[0] = -1 is out of range for torch.uint8 [0, 255]``. Bug:
a tensor of 65,537 ``255``s. (65,536 elements: both raise.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target

#: Payloads of at most this many elements are range-checked (the bug's threshold).
RANGE_CHECK_MAX_ELEMENTS = 1 << 16

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
        raise ValueError(
            f"out.shape={tuple(out.shape)} but data has shape {tuple(source.shape)}; "
            "out is never broadcast or truncated"
        )
    if out is not None and not (isinstance(data, torch.Tensor) and out is data) and _shares_memory(source, out):
        raise ValueError("out shares memory with data; copy data first or pass another out")
    if source.numel() <= RANGE_CHECK_MAX_ELEMENTS:  # BUG: bulk payloads skip the per-element range check
        check_representable(source, dtype)
    if dtype is torch.bool and (source.is_neg() or source.is_conj()):
        # torch's copy_ cannot write a view with the negative (or conjugate) bit into bool ("neg_cpu not
        # implemented for 'Bool'"); the values are the resolved view's (Tensor.to(torch.bool) reads it so too)
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


def _fork() -> Fork:
    return fork("b18", h2d={"_prepare": _prepare, "RANGE_CHECK_MAX_ELEMENTS": RANGE_CHECK_MAX_ELEMENTS})


def target() -> Target:
    f = _fork()
    return make_target(
        "b18_range_check_small_payloads_only",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b18"),
    )
