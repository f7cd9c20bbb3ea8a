"""b04 (CPU): ``device="cuda"`` on a host without CUDA silently returns a host tensor instead of raising.

Where: h2d_impl/h2d.py, ``_resolve_uncached``.
Change: ``if not count: raise ValueError(f"{name}={dev} but CUDA is not available in this process")``
    -> ``if not count: return _CPU``.
Why plausible: a convenience for developers running the engine's code on CPU-only laptops and CI
    ("fall back to the host when there is no GPU"), the way some engines pick ``"cpu"`` when
    ``torch.cuda.is_available()`` is False.
Promise broken: async_tensor_h2d's docstring, Raises: "ValueError: ... ``device`` invalid,
    unavailable or disagreeing with ``out.device``"; contracts.md values: the result "is on the
    requested device with its index"; cpu-path: the CPU variant asked for ``"cuda"``,
    ``"cuda:0"``, ``0`` raises ``ValueError`` naming ``device``.
Smallest input (on a host without CUDA):
    async_tensor_h2d([1, 2], device="cuda")
Reference: ``ValueError: device=cuda but CUDA is not available in this process``. Bug:
    ``tensor([1, 2])`` on the CPU (and ``"cuda:0"`` is then cached as the host); the CPU-platform
    variant accepts ``"cuda"`` too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full


def _resolve_uncached(device: Any, name: str) -> torch.device:
    if isinstance(device, (bool, np.bool_)) or not isinstance(device, (torch.device, str, int, np.integer)):
        raise TypeError(f"{name} must be a torch.device, str or int, got {device!r}")
    if isinstance(device, np.integer):
        device = int(device)
    if isinstance(device, int) and device < 0:
        raise ValueError(f"{name}={device} is a negative device index")
    try:
        dev = _parse_device(device)  # noqa: F821 (the fork's)
    except (RuntimeError, ValueError) as exc:
        raise ValueError(f"{name}={device!r} is not a valid device string") from exc
    if dev.type == "cpu":
        if dev.index not in (None, 0):
            raise ValueError(f"{name}={dev} names a CPU index; the host is 'cpu'")
        return _CPU  # noqa: F821
    if dev.type != "cuda":
        raise ValueError(f"{name}={dev} is not supported: the target must be 'cpu' or a CUDA device")
    count = _cuda_device_count()  # noqa: F821
    if not count:
        return _CPU  # noqa: F821  # BUG: no CUDA: fall back to the host instead of refusing
    index = torch.cuda.current_device() if dev.index is None else dev.index
    if not 0 <= index < count:
        raise ValueError(f"{name}={dev} but only {count} CUDA device(s) are visible")
    return dev if dev.index is not None else torch.device("cuda", index)


def target() -> Target:
    return fork_target_full("b04_cuda_falls_back_to_host", fork("b04", h2d={"_resolve_uncached": _resolve_uncached}))
