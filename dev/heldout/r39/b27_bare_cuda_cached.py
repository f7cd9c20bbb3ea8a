"""b27 (GPU-only, two GPUs, h2d.py ``_resolve_device``): every str/int/``torch.device`` spelling is memoised, bare ``"cuda"`` included: it resolves once to the device current at the first call and keeps that answer after the current device changes.

What changed: the caching condition ``resolved.type == "cpu" or kind is int or
_parse_device(device).index is not None`` was dropped: every cacheable spelling is cached
(``len(_RESOLVED) < 256`` still bounds it).

Why an engineer would write it: the comment above ``_RESOLVED`` says "The visible devices
cannot change within a process, so such a spelling always resolves the same way", and
bare ``"cuda"`` is the engine's most common spelling, paying ``_parse_device`` plus
``torch.cuda.current_device()`` on every call; the third term looks like an over-cautious
special case. It is the one spelling whose meaning changes: "a bare ``cuda`` depends on
the current device and is never cached".

Promise broken: ``async_tensor_h2d`` docstring: "A bare ``"cuda"`` means the current
device"; docs/reference.md: "device: ``"cuda"`` (the current device)"; docs/contracts.md
values: "on the requested device with its index"; stream: the copy "ordered on the
current stream" of the target device.

Smallest input (two GPUs): ``torch.cuda.set_device(0); async_tensor_h2d([1],
device='cuda')``; ``torch.cuda.set_device(1); async_tensor_h2d([1],
device='cuda').device`` (or ``with torch.cuda.device(1): ...``, as a per-device worker
thread does).

Reference result: ``cuda:1``.
Bug result: ``cuda:0`` (and the copy is issued under a device switch to ``cuda:0``,
ordered on ``cuda:0``'s stream, not the caller's).
With one GPU the current device is always ``cuda:0``; on a CPU-only host ``"cuda"`` is
refused before anything is cached (as by the reference).
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target

from ._common import buffer_utils_ns, fork, make_target


def _resolve_device(device: Any, name: str = "device") -> torch.device:
    """Parse ``device`` and give CUDA devices an explicit index (the current device)."""
    kind = type(device)
    if kind in _CACHEABLE:
        hit = _RESOLVED.get((kind, device))
        if hit is not None:
            return hit
    resolved = _resolve_uncached(device, name)
    # BUG: was `... and (resolved.type == "cpu" or kind is int or _parse_device(device).index is not None)`:
    # bare "cuda" is cached too, resolved to the device current at its first call
    if kind in _CACHEABLE and len(_RESOLVED) < 256:
        _RESOLVED[(kind, device)] = resolved
    return resolved


def target() -> Target:
    f = fork("b27", h2d={"_resolve_device": _resolve_device})
    return make_target(
        "b27_bare_cuda_cached",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
