"""An unparsable device string escapes as torch's bare ``RuntimeError`` instead of ``ValueError`` naming ``device``.

``_resolve_uncached`` wraps ``torch.device(device)`` in ``except ValueError`` only (the
author assumed torch raises ValueError for a bad string, as it does for some); torch
raises ``RuntimeError`` for an unknown device type, so ``device="gpu:0"`` (the bad-input
kind ``bad-device-string``) gets ``RuntimeError: Expected one of cpu, cuda, ...``, a
message that does not name the argument.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import h2d

from ._common import make_target
from ._patch import entry_points, rebind

_parse_device = h2d._parse_device
_cuda_device_count = h2d._cuda_device_count
_CPU = h2d._CPU


def _resolve_uncached(device: Any, name: str) -> torch.device:
    """The reference's ``_resolve_uncached`` catching ValueError alone around the parse."""
    if isinstance(device, (bool, np.bool_)) or not isinstance(device, (torch.device, str, int, np.integer)):
        raise TypeError(f"{name} must be a torch.device, str or int, got {device!r}")
    if isinstance(device, np.integer):
        device = int(device)
    if isinstance(device, int) and device < 0:
        raise ValueError(f"{name}={device} is a negative device index")
    try:
        dev = _parse_device(device)
    except ValueError as exc:  # BUG: torch.device raises RuntimeError for an unknown device type
        raise ValueError(f"{name}={device!r} is not a valid device string") from exc
    if dev.type == "cpu":
        if dev.index not in (None, 0):
            raise ValueError(f"{name}={dev} names a CPU index; the host is 'cpu'")
        return _CPU
    if dev.type != "cuda":
        raise ValueError(f"{name}={dev} is not supported: the target must be 'cpu' or a CUDA device")
    count = _cuda_device_count()
    if not count:
        raise ValueError(f"{name}={dev} but CUDA is not available in this process")
    index = torch.cuda.current_device() if dev.index is None else dev.index
    if not 0 <= index < count:
        raise ValueError(f"{name}={dev} but only {count} CUDA device(s) are visible")
    return dev if dev.index is not None else torch.device("cuda", index)


def target():
    resolve = rebind(h2d._resolve_device, _resolve_uncached=_resolve_uncached)
    fn, cpu = entry_points(prepare=rebind(h2d._prepare, _resolve_device=resolve))
    return make_target("b05-device-string-runtimeerror", fn=fn, cpu_variant=cpu)
