"""b17 (CPU-visible): host staging switches the CPU to flush-to-zero for speed, and leaves it so.

Where: ``h2d_impl/h2d.py``, ``_stage``.

Change: ``torch.set_flush_denormal(True)`` added before the host copy ("float conversions of
subnormal inputs run ~100x slower on x86; the engine never needs them").

Why plausible: a known CPU-inference speed trick (several CPU backends set it at start-up),
moved where the conversions happen. ``set_flush_denormal`` sets the thread's MXCSR
FTZ/DAZ bits: the very copy it guards now flushes subnormal results to zero, and every
later float computation of that thread (the caller's included) does too. The process
state is not among those the kit reads, so only values show it.

Promise broken: README values: "signed zeros, NaN payloads, subnormals, infinities and
extremes in every kind at every size", "bit for bit"; docs/reference.md "Process-wide
state: a call changes none".

Smallest input: ``async_tensor_h2d([1e-40], dtype=torch.float32, device='cpu')``.
Reference: ``tensor([1.0000e-40])`` (a float32 subnormal), and afterwards
``torch.tensor([1e-40]) * 1`` is still ``1e-40``.
Bug: ``tensor([0.])``; afterwards the caller's ``torch.tensor([1e-40]) * 1`` is ``0.`` too.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


def _stage(source: torch.Tensor, dtype: torch.dtype, pin: bool) -> torch.Tensor:
    torch.set_flush_denormal(True)  # BUG: process (thread) FP mode switched, never restored
    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)
    return _host_copy(staging, source)  # noqa: F821


def _fork() -> Fork:
    return fork("b17", h2d={"_stage": _stage})


def target() -> Target:
    return fork_target_full("b17_flush_denormal_switched_on", _fork())
