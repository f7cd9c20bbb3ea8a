"""b10 (CPU): a tensor passed as ``device`` is taken for its device, as ``Tensor.to(other)`` does, instead of refused.

Where: ``h2d_impl/h2d.py::_resolve_uncached`` (every ``device`` argument of both entry points).

Change: a "harmless widening" before the type test ("``Tensor.to(other)`` takes a tensor for its
device; callers write ``async_tensor_h2d(ids, device=hidden_states)``")::

    if isinstance(device, (bool, np.bool_)) or not isinstance(device, (torch.device, str, int, np.integer)):   # reference
        raise TypeError(f"{name} must be a torch.device, str or int, got {device!r}")

    if isinstance(device, torch.Tensor):                                      # bug
        device = device.device
    if isinstance(device, (bool, np.bool_)) or not isinstance(...):
        raise TypeError(...)

Any tensor is now a device: ``device=out`` (a common slip for ``out=out``) no longer raises but
copies into a fresh tensor on ``out``'s device and leaves ``out`` unwritten; ``device=data`` copies
the data onto its own device; a 0-d index tensor ``torch.tensor(0)`` means the host, not
``cuda:0``. (In ``h2d_impl`` the same resolver serves ``CpuGpuBuffer``'s ``device``; this target keeps
the reference buffer class, so only the two functions change.)

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "device: target device (``"cuda"``, ``"cuda:1"``, an
int index, a ``torch.device``, or ``"cpu"``)"; docs/reference.md, device: "``"cuda"`` (the current device),
``"cuda:1"``, an int or numpy integer, a ``torch.device``, ``"cpu"``"; docs/contracts.md, bad-input:
kind ``device-wrong-type`` (a device of another type) must raise ``TypeError``.

Smallest input: ``async_tensor_h2d([1], device=torch.zeros(1))``.
Reference: ``TypeError: device must be a torch.device, str or int, got tensor([0.])``.
Bug: ``tensor([1])`` on the host.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with one branch added; every other name resolves in the forked module.
# ruff: noqa: F821


def _resolve_uncached(device: Any, name: str) -> torch.device:
    if isinstance(device, torch.Tensor):  # BUG (r55 b10): like Tensor.to(other): a tensor names its device
        device = device.device
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


def target() -> Target:
    f = fork("b10", h2d={"_resolve_uncached": _resolve_uncached})
    return make_target(
        "b10_tensor_accepted_as_device",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b10"),
    )
