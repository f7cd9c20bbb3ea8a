"""b15 (CPU-visible): host results are recycled when their Python refcount says nobody holds them.

Where: ``h2d_impl/h2d.py``, ``_stage`` (the fresh host tensor of every host-target call
without ``out``, main function and CPU-platform variant).

Change: instead of ``torch.empty(...)`` per call, the last tensor of each (shape, dtype,
pin) is kept in a module dict and handed out again when ``sys.getrefcount(t)`` shows only
the dict's own references ("the caller dropped it: reuse the allocation, as CPU workers
upload the same shapes every step").

Why plausible: a common allocation-avoidance trick. But the Python refcount of a tensor
counts only Python references to *that object*: a numpy view (``r.numpy()``, and any
tensor made from it with ``torch.from_numpy``) keeps the memory alive without counting
(torch views of ``r`` do count: they hold ``r`` as their base). Such a holder
sees a later call's values appear in "its" result.

Promise broken: README no-alias: "the result shares no memory with the input or an
earlier result"; sequence: every result "is a new object, and never changes later";
``async_tensor_h2d`` Returns: "a new contiguous tensor"; CPU variant: "a new contiguous
CPU tensor that never aliases ``data``".

Smallest input: ``r = async_tensor_h2d([1, 2, 3], device='cpu'); a = r.numpy(); del r;
async_tensor_h2d([7, 8, 9], device='cpu'); a``.
Reference: ``a == [1, 2, 3]``.
Bug: ``a == [7, 8, 9]`` (the second call wrote into the first result's memory).
"""

from __future__ import annotations

import sys

import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


def _stage(source: torch.Tensor, dtype: torch.dtype, pin: bool) -> torch.Tensor:
    key = (tuple(source.shape), dtype, pin)
    staging = _RECYCLED.get(key)  # noqa: F821
    # BUG: dict + this local + getrefcount's argument == 3: "nobody else holds it"
    if staging is None or sys.getrefcount(staging) > 3:
        staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)
        _RECYCLED[key] = staging  # noqa: F821
    return _host_copy(staging, source)  # noqa: F821


def _fork() -> Fork:
    return fork("b15", h2d={"_stage": _stage, "_RECYCLED": {}, "sys": sys})


def target() -> Target:
    return fork_target_full("b15_result_recycled_by_refcount", _fork())
