"""``out`` that *is* ``data`` is refused as an overlap.

What changed: ``h2d._prepare`` refused an ``out`` whose bytes overlap ``data``'s, except when
``out`` is the very tensor passed as ``data`` (copying a tensor onto itself reads and writes
each element in place: exact). The change drops the identity exemption: "aliasing is
aliasing; a caller passing the same tensor twice has a bug, refuse it with the others".

Why an engineer writes it: the exemption reads like a hole in a safety check, and the
overlap check without it is one simple condition.

Promise broken: docs/reference.md ``out``: "not overlapping data's bytes (disjoint slices of
one buffer are fine; ``out`` that *is* ``data`` is allowed)". An engine that normalises a
host tensor in place through the helper (``async_tensor_h2d(buf, dtype=buf.dtype,
out=buf)``, the CPU worker's no-op upload of a host buffer onto itself) now gets ValueError.

Smallest input: ``t = torch.tensor([1, 2]); async_tensor_h2d(t, out=t)``: reference returns
``t`` (``[1, 2]``); bug ``ValueError: out shares memory with data``.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target


def _prepare(
    data: Any, device: Any, dtype: Any, out: Any, *, cpu_only: bool
) -> tuple[torch.Tensor, torch.dtype, torch.device]:
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
        raise ValueError(f"the CPU-platform variant only targets host memory, got device {target}")
    if target.type not in ("cpu", "cuda"):
        raise ValueError(f"out.device={target} is not supported: the target must be 'cpu' or a CUDA device")
    source, own_dtype = as_source_tensor(data, infer_dtype=dtype is None)  # noqa: F821
    dtype = own_dtype if dtype is None else dtype
    if out is not None and tuple(out.shape) != tuple(source.shape):
        raise ValueError(
            f"out.shape={tuple(out.shape)} but data has shape {tuple(source.shape)}; "
            "out is never broadcast or truncated"
        )
    if out is not None and _shares_memory(source, out):  # noqa: F821  # BUG: `out is data` no longer exempt
        raise ValueError("out shares memory with data; copy data first or pass another out")
    check_representable(source, dtype)  # noqa: F821
    if dtype is torch.bool and (source.is_neg() or source.is_conj()):
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


def target() -> Target:
    return fork_target("b13_out_is_data_refused", fork("b13", h2d={"_prepare": _prepare}))
