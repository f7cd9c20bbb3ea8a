"""b07 (CPU-visible): a CPU spelling is cached before its index is checked, so a refusal is not repeatable.

Where: ``h2d_impl/h2d.py``, ``_resolve_uncached`` (the ``cpu`` branch).

Change: in the ``dev.type == "cpu"`` branch, the resolution is written into the
resolved-device cache ``_RESOLVED`` first ("every CPU spelling resolves to the host:
cache it as soon as it is parsed"), and only then is ``dev.index not in (None, 0)``
checked.

Why plausible: ``_resolve_device`` caches only after ``_resolve_uncached`` returned; moving
the CPU case's caching next to the place where "it is the host" is known looks like the
same thing, written closer to the decision. The ``raise`` below it no longer undoes it:
the first ``device='cpu:1'`` is refused, every later one is a cache hit.

Promise broken: README bad-input: 60 kinds "cold and after valid calls that warm the
target's caches: the documented exception"; docs/contracts.md: "a failing call leaves the
caches as they were"; ``cpu-device-index``: ``async_tensor_h2d([0], device='cpu:1')``
must raise ``ValueError``.

Smallest input: ``async_tensor_h2d([0], device='cpu:1')`` twice.
Reference: ``ValueError: device=cpu:1 names a CPU index; the host is 'cpu'`` both times.
Bug: the first call raises that ``ValueError``; the second returns ``tensor([0])`` on the
host (so does every later call, and ``CpuGpuBuffer``s of this target's module).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


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
        if type(device) in _CACHEABLE:  # noqa: F821  BUG: cached before the index is checked
            _RESOLVED[(type(device), device)] = _CPU  # noqa: F821
        if dev.index not in (None, 0):
            raise ValueError(f"{name}={dev} names a CPU index; the host is 'cpu'")
        return _CPU  # noqa: F821
    if dev.type != "cuda":
        raise ValueError(f"{name}={dev} is not supported: the target must be 'cpu' or a CUDA device")
    count = _cuda_device_count()  # noqa: F821
    if not count:
        raise ValueError(f"{name}={dev} but CUDA is not available in this process")
    index = torch.cuda.current_device() if dev.index is None else dev.index
    if not 0 <= index < count:
        raise ValueError(f"{name}={dev} but only {count} CUDA device(s) are visible")
    return dev if dev.index is not None else torch.device("cuda", index)


def _fork() -> Fork:
    return fork("b07", h2d={"_resolve_uncached": _resolve_uncached})


def target() -> Target:
    return fork_target_full("b07_cpu_spelling_cached_before_check", _fork())
