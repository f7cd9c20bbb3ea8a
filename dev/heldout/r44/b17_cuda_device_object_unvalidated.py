"""b17 (CPU): an explicit CUDA ``torch.device`` skips device validation ("already resolved").

Where: ``h2d._resolve_uncached`` (device resolution of the main function and the
CPU-platform variant), a fast path added first.

The change::

    if type(device) is torch.device and device.type == "cuda" and device.index is not None:
        return device

Why an engineer writes it: the resolver's job for CUDA is to give a bare ``"cuda"`` its
index; engines pass ``torch.device("cuda", local_rank)``, already explicit, so parsing and
the device-count lookups look like wasted work on the hot path. The fast path also skips
the validation behind them: whether CUDA is usable in the process and whether the index
is visible. Such a device then fails deep in the staging path with torch's error: on a
CPU-only host ``AssertionError: Torch not compiled with CUDA enabled``, on a GPU host with
an index past the visible devices a CUDA ``RuntimeError``, instead of a ``ValueError``
naming ``device``.

Promise broken: docs/reference.md *Errors*: "``TypeError`` (wrong kind), ``ValueError``
(wrong value), never ``assert``, naming the argument"; ``async_tensor_h2d`` docstring,
Raises "ValueError: ... ``device`` invalid, unavailable ..."; bad-input kind
``missing-cuda-index`` (``ValueError``, docs/contracts.md).

Smallest input: ``async_tensor_h2d([1], device=torch.device("cuda", 0))`` on a CPU-only host.
Reference: ``ValueError: device=cuda:0 but CUDA is not available in this process``.
Bug: ``AssertionError: Torch not compiled with CUDA enabled``. (The string ``"cuda:0"``
and a bare ``torch.device("cuda")`` are still refused with ``ValueError``.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target

# flake8: noqa: F821  (the function below resolves the reference's names in the fork)

def _resolve_uncached(device: Any, name: str) -> torch.device:
    """Parse and validate ``device``; CUDA devices get an explicit index (the current device)."""
    if type(device) is torch.device and device.type == "cuda" and device.index is not None:
        return device  # BUG: "an explicit CUDA torch.device is already resolved" (engines pass torch.device("cuda", rank))
    if isinstance(device, (bool, np.bool_)) or not isinstance(device, (torch.device, str, int, np.integer)):
        raise TypeError(f"{name} must be a torch.device, str or int, got {device!r}")
    if isinstance(device, np.integer):
        device = int(device)
    if isinstance(device, int) and device < 0:
        raise ValueError(f"{name}={device} is a negative device index")
    try:
        dev = _parse_device(device)
    except (RuntimeError, ValueError) as exc:
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


def _fork() -> Fork:
    return fork("b17", h2d={"_resolve_uncached": _resolve_uncached})


def target() -> Target:
    f = _fork()
    return make_target(
        "b17_cuda_device_object_unvalidated",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b17"),
    )
