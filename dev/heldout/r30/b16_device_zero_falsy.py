"""``device`` is tested for truth (``if not device``), so ``device=0`` counts as "no device".

``_prepare`` checks ``if not device and out is None`` and resolves ``device`` only ``if
device``. The int ``0`` (and ``np.int64(0)``), documented spellings of CUDA device 0, is
falsy: without ``out`` the call raises ``TypeError: a target is required`` (on a GPU the
valid call fails; on a CPU-only host the documented ``ValueError`` for an unavailable
device becomes a ``TypeError``); with ``out`` the device is ignored, so ``device=0`` with a
host ``out`` writes ``out`` where the reference refuses the disagreement (``ValueError``).
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.h2d_impl.h2d import (
    _check_out,
    _resolve_device,
    _shares_memory,
    as_source_tensor,
    check_dtype_arg,
    check_representable,
)

from ._common import make_target
from ._patch import entry_points


def _prepare(data: Any, device: Any, dtype: Any, out: Any, *, cpu_only: bool):
    """The reference's ``_prepare`` testing ``device`` for truth instead of ``is None``."""
    check_dtype_arg(dtype)
    if out is not None:
        _check_out(out)
    if not device and out is None:  # BUG: device=0 is falsy
        raise TypeError("a target is required: pass device=... or out=... (got neither)")
    target = _resolve_device(device) if device else None  # BUG: device=0 is dropped
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
    return source, dtype, target


def target():
    fn, cpu = entry_points(prepare=_prepare)
    return make_target("b16-device-zero-falsy", fn=fn, cpu_variant=cpu)
