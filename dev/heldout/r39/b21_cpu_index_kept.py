"""b21 (CPU-visible, h2d.py ``_resolve_uncached``): ``"cpu:0"`` resolves to ``torch.device("cpu", 0)`` instead of the canonical ``cpu``; torch compares the two unequal, so ``device="cpu:0"`` (or ``torch.device("cpu", 0)``) with a host ``out`` is refused.

What changed: in the CPU branch, ``return _CPU`` became ``return dev`` (the parsed device).

Why an engineer would write it: "return what torch parsed, don't swap the caller's
device for a module constant" (CUDA devices are returned as parsed too), and index 0
is the only one allowed anyway. But ``torch.device("cpu", 0) != torch.device("cpu")``,
and ``_prepare`` compares the resolved target with ``out.device`` (always ``cpu``).

Promise broken: ``async_tensor_h2d`` docstring: "device: target device (... or
``"cpu"``) ... if both are given they must agree" and "ValueError: ``device`` invalid,
unavailable or disagreeing with ``out.device``" (``cpu:0`` is the host: the reference
refuses only other CPU indices, "names a CPU index; the host is 'cpu'");
docs/contracts.md bad-input: the warm calls run "over every spelling of the device
(``"cpu"``, ``torch.device("cpu")``, ``"cpu:0"``, ``torch.device("cpu", 0)``)".

Smallest input: ``async_tensor_h2d([1], device='cpu:0', out=torch.zeros(1,
dtype=torch.int64))`` (also ``device=torch.device('cpu', 0)``, and the CPU variant).

Reference result: ``out`` returned, ``[1]``.
Bug result: ``ValueError: device=cpu:0 disagrees with out.device=cpu``, nothing written
(calls without ``out`` are unaffected).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import buffer_utils_ns, fork, make_target


def _resolve_uncached(device: Any, name: str) -> torch.device:
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
        return dev  # BUG: was `return _CPU`; cpu:0 kept, and torch.device("cpu", 0) != torch.device("cpu")
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
    f = fork("b21", h2d={"_resolve_uncached": _resolve_uncached})
    return make_target(
        "b21_cpu_index_kept",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
