"""The engine's H2D utilities, in vLLM's shape.

This engine adopted the kit's reference implementation and adds its own default
device (the engine's current CUDA device, else the host), so the example passes; in
your engine these are your own functions and ``tinyengine.h2d_target`` points the kit
at them.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.h2d_impl import CpuGpuBuffer as _ReferenceBuffer
from h2d_contracts.h2d_impl import async_tensor_h2d as _reference_h2d


def default_device() -> torch.device:
    """The engine's device: ``cuda:<current>`` when CUDA is available, else the host."""
    return torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else torch.device("cpu")


def async_tensor_h2d(
    data: Any,
    device: torch.device | str | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """``data`` (list, ndarray or host tensor) on ``device`` (default: the engine's) through a pinned staging buffer."""
    return _reference_h2d(data, device=device, dtype=dtype, out=out)


class CpuGpuBuffer(_ReferenceBuffer):
    """The engine's persistent input buffer: pinned ``.cpu``, ``.gpu`` and a ``.np`` view; ``copy_to_gpu(n)``."""
