"""b02 - ``out`` overlapping ``data`` is "fixed" by copying ``data`` first instead of being refused.

Where: ``h2d._prepare`` (the overlap check between ``data``'s bytes and ``out``'s).

Change (old -> new)::

    if out is not None and not (...) and _shares_memory(source, out):
        raise ValueError("out shares memory with data; copy data first or pass another out")
    ->
    if out is not None and not (...) and _shares_memory(source, out):
        source = source.clone()  # BUG: do what the message asks the caller to do

Why an engineer writes it: the refusal's own message says "copy data first"; an engineer fixing
a crash report from a caller who passed a shifted view of a persistent buffer (``buf[:n]``
into ``buf[1:n+1]``, a common ring-buffer shift) makes the helper do that copy itself: the
result is then correct, so the change looks strictly friendlier.

Promise broken: docs/reference.md "What it promises" (``out``: "not overlapping ``data``'s
bytes"), docs/contracts.md "bad-input" (kinds ``out-aliases-data`` and
``out-aliases-data-array`` must raise ``ValueError`` naming ``out`` and leave every byte of
``out``'s storage as it was).

Smallest input (CPU)::

    base = torch.arange(3.0)
    async_tensor_h2d(base[:2], out=base[1:])

Reference: ``ValueError: out shares memory with data ...``; ``base`` stays ``[0., 1., 2.]``.
Bug: returns ``out`` holding ``[0., 1.]``; ``base`` becomes ``[0., 0., 1.]`` (written, no error).
"""

from __future__ import annotations

from typing import Any

import torch
from h2d_contracts.contracts import Target
from plumbing import fork, fork_target_full


def _prepare(
    data: Any, device: Any, dtype: Any, out: Any, *, cpu_only: bool
) -> tuple[torch.Tensor, torch.dtype, torch.device]:
    """Validate every argument and return (source, target dtype, target device)."""
    check_dtype_arg(dtype)  # noqa: F821
    if out is not None:
        _check_out(out)  # noqa: F821
    if device is None and out is None:
        raise TypeError("a target is required: pass device=... or out=... (got neither)")
    target: torch.device = _resolve_device(device) if device is not None else None  # type: ignore[assignment]  # noqa: F821
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
    source, own_dtype = as_source_tensor(data, infer_dtype=dtype is None)  # noqa: F821
    dtype = own_dtype if dtype is None else dtype
    if out is not None and tuple(out.shape) != tuple(source.shape):
        raise ValueError(
            f"out.shape={tuple(out.shape)} but data has shape {tuple(source.shape)}; "
            "out is never broadcast or truncated"
        )
    if out is not None and not (isinstance(data, torch.Tensor) and out is data) and _shares_memory(source, out):  # noqa: F821
        source = source.clone()  # BUG: copy data first ourselves instead of refusing
    check_representable(source, dtype)  # noqa: F821
    if dtype is torch.bool and (source.is_neg() or source.is_conj()):
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


def target() -> Target:
    return fork_target_full("b02_overlap_cloned_not_refused", fork("b02", h2d={"_prepare": _prepare}))
