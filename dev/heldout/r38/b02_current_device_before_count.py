"""b02 (CPU-visible, h2d.py ``_resolve_uncached``): the current CUDA device is read before CUDA's availability is checked.

What changed: the two CUDA checks were merged into one range check, and the index
(``torch.cuda.current_device()`` for a bare ``"cuda"``) is now computed first::

    index = torch.cuda.current_device() if dev.index is None else dev.index
    count = _cuda_device_count()
    if not 0 <= index < count: raise ValueError(...)

Why an engineer would write it: "``count == 0`` is just the empty range: one check covers
both cases". For ``"cuda:0"`` on a CPU host it still raises the same ``ValueError``.

Promise broken: errors are ``TypeError``/``ValueError`` naming the argument, never
``assert`` (docs/reference.md "Errors"; docstring: "ValueError: ... ``device`` invalid,
unavailable"); contracts.md cpu-path: the CPU variant asked for ``"cuda"`` raises
``ValueError`` naming ``device``. On a CPU-only torch ``torch.cuda.current_device()``
raises ``AssertionError("Torch not compiled with CUDA enabled")`` (a CUDA build without a
driver raises ``RuntimeError``), and it now escapes. ``CpuGpuBuffer(..., device="cuda")``
is not affected (it resolves through the reference module).

Smallest input: ``async_tensor_h2d([0], device="cuda")`` on a host without CUDA (also
``async_tensor_h2d_cpu([0], device="cuda")``).
Reference: ``ValueError: device=cuda but CUDA is not available in this process``.
Bug: ``AssertionError: Torch not compiled with CUDA enabled``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from h2d_contracts.contracts import Target

from ._common import Fork, buffer_utils_ns, fork, make_target


def _resolve_uncached(device: Any, name: str) -> torch.device:
    if isinstance(device, (bool, np.bool_)) or not isinstance(device, (torch.device, str, int, np.integer)):
        raise TypeError(f"{name} must be a torch.device, str or int, got {device!r}")
    if isinstance(device, np.integer):
        device = int(device)
    if isinstance(device, int) and device < 0:
        raise ValueError(f"{name}={device} is a negative device index")
    try:
        dev = _parse_device(device)  # noqa: F821
    except (RuntimeError, ValueError) as exc:
        raise ValueError(f"{name}={device!r} is not a valid device string") from exc
    if dev.type == "cpu":
        if dev.index not in (None, 0):
            raise ValueError(f"{name}={dev} names a CPU index; the host is 'cpu'")
        return _CPU  # noqa: F821
    if dev.type != "cuda":
        raise ValueError(f"{name}={dev} is not supported: the target must be 'cpu' or a CUDA device")
    # BUG: the index is read before the availability check (merged into the range check below);
    # torch.cuda.current_device() raises AssertionError/RuntimeError where CUDA is unusable
    index = torch.cuda.current_device() if dev.index is None else dev.index
    count = _cuda_device_count()  # noqa: F821
    if not 0 <= index < count:
        raise ValueError(f"{name}={dev} but only {count} CUDA device(s) are visible")
    return dev if dev.index is not None else torch.device("cuda", index)


def _fork() -> Fork:
    return fork("b02", h2d={"_resolve_uncached": _resolve_uncached})


def target() -> Target:
    f = _fork()
    return make_target(
        "b02_current_device_before_count",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
