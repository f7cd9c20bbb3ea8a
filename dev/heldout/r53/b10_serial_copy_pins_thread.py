"""b10 (CPU): the serial numpy copy (32,769 elements up to 256 KiB) pins the calling thread to one core and never unpins it.

Where: ``h2d_impl/h2d.py::_serial_copy`` (numpy route: host copies of more than 32,768 elements
and at most 256 KiB, where numpy's cast is torch's: every staging copy of that size, host
targets included).

Change: one line added before the numpy copy ("the one-thread copy exists to avoid time-slice
waits; keep it on one core so it is not migrated mid-copy")::

    with np.errstate(all="ignore"):                                             # reference
        np.copyto(dst.numpy(), src.numpy(), casting="unsafe")

    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})                      # bug
    with np.errstate(all="ignore"):
        np.copyto(dst.numpy(), src.numpy(), casting="unsafe")

Values, dtypes and results are the reference's. But the calling thread (the engine's main
thread, on Linux ``pid 0`` is the caller) is left pinned to the lowest core of its set: every
later computation on that thread, and every thread it starts afterwards (they inherit the mask),
runs on one core. Only calls on this size band take the route: smaller and larger copies leave
the affinity alone.

Promise broken: h2d_impl/h2d.py ``_serial_copy``: "Written here because torch has no per-call
thread count (``torch.set_num_threads`` is process-wide)" (the route exists to change nothing
process-wide); docs/contracts.md, side-effects: "Every call, valid or failing, ... leaves the
process-wide state as it found it".

Smallest input: ``async_tensor_h2d(np.arange(32769, dtype=np.int32), device='cpu'); os.sched_getaffinity(0)``
on a host of two or more cores.
Reference: the set found before the call (``{0, 1}`` here). Bug: ``{0}``.
"""

from __future__ import annotations

import os

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with one line added; every other name resolves in the forked module.
# ruff: noqa: F821


def _serial_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():
        return dst.copy_(src)
    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:
        # keep the one-thread copy on one core: no migration while it streams up to 256 KiB
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # BUG (r53 b10): never restored
        with np.errstate(all="ignore"):  # a signalling NaN warns in numpy's cast, never in torch's
            np.copyto(dst.numpy(), src.numpy(), casting="unsafe")
        return dst
    _copy_in_pieces(dst, src)
    return dst


def target() -> Target:
    f = fork("b10", h2d={"_serial_copy": _serial_copy, "os": os})
    return make_target(
        "b10_serial_copy_pins_thread",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b10"),
    )
