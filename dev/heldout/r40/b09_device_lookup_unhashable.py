"""b09 (CPU-visible): the resolved-device cache is looked up before the argument's type is known.

Where: ``h2d_impl/h2d.py``, ``_resolve_device``.

Change: the lookup guard ``if kind in _CACHEABLE:`` is dropped: ``hit = _RESOLVED.get((kind, device))``
runs for every ``device`` (insertion keeps its guard).

Why plausible: "a miss is cheap and only cacheable kinds are ever inserted, so the type
test before the lookup is redundant" (a set lookup saved on every call). But the lookup
hashes ``device``: an unhashable one (a list, a dict, an ndarray, a ``set``) raises
``TypeError: unhashable type`` from inside the dict, before the argument check that
names ``device``.

Promise broken: README bad-input: "the documented exception, a message naming the
argument"; docs/reference.md "Errors: ... naming the argument"; ``async_tensor_h2d``
Raises: "ValueError: ... ``device`` invalid" / ``_resolve_device`` refusals name
``device``. The same holds for ``CpuGpuBuffer(device=...)`` of a target that shares this
resolver.

Smallest input: ``async_tensor_h2d([0], device=['cpu'])``.
Reference: ``TypeError: device must be a torch.device, str or int, got ['cpu']``.
Bug: ``TypeError: unhashable type: 'list'`` (no argument named).
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


def _resolve_device(device: Any, name: str = "device") -> torch.device:
    kind = type(device)
    hit = _RESOLVED.get((kind, device))  # noqa: F821  BUG: hashes any device before its type is checked
    if hit is not None:
        return hit
    resolved = _resolve_uncached(device, name)  # noqa: F821
    if (
        kind in _CACHEABLE  # noqa: F821
        and len(_RESOLVED) < 256  # noqa: F821
        and (resolved.type == "cpu" or kind is int or _parse_device(device).index is not None)  # noqa: F821
    ):
        _RESOLVED[(kind, device)] = resolved  # noqa: F821
    return resolved


def _fork() -> Fork:
    return fork("b09", h2d={"_resolve_device": _resolve_device})


def target() -> Target:
    return fork_target_full("b09_device_lookup_unhashable", _fork())
