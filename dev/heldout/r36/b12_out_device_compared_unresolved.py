"""With ``out`` given, ``device`` is compared with ``out.device`` as spelled, unresolved.

What changed: ``h2d._prepare`` resolved ``device`` (validated it: type, index, CUDA
availability; ``"cpu:0"`` is the host, a bare ``"cuda"`` the current device) and then
compared the resolved device with ``out.device``. The change lets ``out`` decide the target
and only compares ``device`` with it: "with an ``out`` the device is redundant, resolving
it costs a cache lookup or a driver call; a mismatch is caught by the comparison anyway".

Why an engineer writes it: it shortens the hot ``out=`` path (the persistent-buffer calls)
and every engine call site passes ``device=out.device`` or nothing.

Promise broken: docs/reference.md "device: ... it must agree with ``out.device``" (an
equivalent spelling agrees) and contracts "bad-input" (``device-bool``: TypeError; bad
device strings: ValueError naming ``device``). ``device="cpu:0"`` (valid: the host, index 0)
with a host ``out`` is now refused; ``device=False`` with an ``out`` reaches torch
(``TypeError: device(): argument 'index' ... must be int, not bool``); ``device="gpu:0"``
with an ``out`` gives torch's bare RuntimeError instead of the ValueError. On a GPU, the
bare ``device="cuda"`` with an ``out`` on ``cuda:0`` is refused too.

Smallest input: ``async_tensor_h2d([1], device="cpu:0", out=torch.zeros(1,
dtype=torch.int64))``: reference returns ``out`` = ``[1]``; bug ``ValueError: device='cpu:0'
disagrees with out.device=cpu``.
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
    if out is not None:
        out_device = out.device
        # BUG: out decides the target; device is only compared with it, as spelled (was: resolved, then compared)
        if device is not None and _parse_device(device) != out_device:  # noqa: F821
            raise ValueError(f"device={device!r} disagrees with out.device={out_device}")
        target = out_device
        if dtype is not None and dtype != out.dtype:
            raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}; it is never converted silently")
        dtype = out.dtype
    else:
        target = _resolve_device(device)  # noqa: F821
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
    if out is not None and not (isinstance(data, torch.Tensor) and out is data) and _shares_memory(source, out):  # noqa: F821
        raise ValueError("out shares memory with data; copy data first or pass another out")
    check_representable(source, dtype)  # noqa: F821
    if dtype is torch.bool and (source.is_neg() or source.is_conj()):
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


def target() -> Target:
    return fork_target("b12_out_device_compared_unresolved", fork("b12", h2d={"_prepare": _prepare}))
