"""b11 (CPU): the resolved-device cache's miss path takes a lock it releases only on success; a refused device leaves it held.

Where: ``h2d_impl/h2d.py::_resolve_device`` (every call that resolves ``device``, both entry points).

Change: a thread-safety fix ("``_RESOLVED`` is filled from every thread that calls: the size test and
the insert are two steps; resolve and insert under one lock")::

    resolved = _resolve_uncached(device, name)                                    # reference
    if (kind in _CACHEABLE and len(_RESOLVED) < 256 and ...):
        _RESOLVED[(kind, device)] = resolved
    return resolved

    _RESOLVE_LOCK.acquire()                                                      # bug (_RESOLVE_LOCK = threading.Lock())
    resolved = _resolve_uncached(device, name)
    if (kind in _CACHEABLE and len(_RESOLVED) < 256 and ...):
        _RESOLVED[(kind, device)] = resolved
    _RESOLVE_LOCK.release()
    return resolved

Without a refusal nothing changes, from any number of threads. But ``_resolve_uncached`` raises for
every bad ``device`` (``'gpu:0'``, ``'meta'``, ``-1``, ``'cpu:1'``, ``'cuda'`` without CUDA, a list): the
``release`` is skipped and the lock stays held. The refused call itself raises as documented; the
next call that misses the cache (a spelling not resolved yet: the first ``torch.device('cpu')``, a
first ``'cpu:0'``, any bad device again) then waits forever, in whatever thread makes it. Spellings
already cached still return, so a warm process looks healthy until a new spelling comes.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "device: target device (``"cuda"``, ``"cuda:1"``, an int
index, a ``torch.device``, or ``"cpu"``)" and "On any exception nothing has been written"; docs/contracts.md,
bad-input: "then the bad call must be refused as documented ... and the warm calls made again must
give their values (a failing call leaves the caches as they were)"; concurrency: "no call raises,
none is lost".

Smallest input: ``async_tensor_h2d([1], device='gpu:0')`` (refused), then ``async_tensor_h2d([1], device='cpu')``
(in a thread, given 0.5 s).
Reference: ``ValueError: device='gpu:0' is not a valid device string``, then ``tensor([1])``.
Bug: the same ``ValueError``, then the second call blocked (the reproduction releases the lock by hand).
"""

from __future__ import annotations

import threading
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals, and _RESOLVE_LOCK bound below)


def _resolve_device(device: Any, name: str = "device") -> torch.device:
    """Parse ``device`` and give CUDA devices an explicit index (the current device)."""
    kind = type(device)
    if kind in _CACHEABLE:
        hit = _RESOLVED.get((kind, device))
        if hit is not None:
            return hit
    _RESOLVE_LOCK.acquire()  # BUG (r56 b11): released below on success only (no try/finally)
    resolved = _resolve_uncached(device, name)
    if (
        kind in _CACHEABLE
        and len(_RESOLVED) < 256
        and (resolved.type == "cpu" or kind is int or _parse_device(device).index is not None)
    ):
        _RESOLVED[(kind, device)] = resolved
    _RESOLVE_LOCK.release()
    return resolved


def target() -> Target:
    f = fork("b11", h2d={"_resolve_device": _resolve_device, "_RESOLVE_LOCK": threading.Lock()})
    return make_target(
        "b11_resolve_lock_leaked_on_refusal",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b11"),
    )
