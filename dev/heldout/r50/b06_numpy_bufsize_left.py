"""b06 (CPU): the serial host copy raises numpy's ufunc buffer size for its cast and never puts it back.

Where: ``h2d_impl/h2d.py::_serial_copy``, the numpy route (32,769 elements up to 256 KiB, a
pure copy or a numpy-castable conversion).

Change (one line added, right before the cast)::

    np.setbufsize(2 * _TORCH_GRAIN)  # bug: "one buffer for the whole cast, not numpy's 8,192-element chunks"
    with np.errstate(all="ignore"):
        np.copyto(dst.numpy(), src.numpy(), casting="unsafe")

``np.setbufsize`` is numpy's process (context) setting, like its error state: the caller's
numpy now runs every buffered ufunc and cast with a 65,536-element buffer, and
``np.getbufsize()`` reports it. The engineer used ``np.errstate`` as a context right below and
took ``setbufsize`` for a per-call option. Values are unchanged; lists, smaller and larger
payloads, and conversions numpy does not make leave the setting alone.

Promise broken: README, side-effects: "every call, valid or failing, leaves the process as it
found it: warnings filters, default dtype and device, grad mode, random states, every torch
and numpy setting"; docs/contracts.md, side-effects: "numpy: error state, print options, buffer
size, error callback, the global random state"; docs/reference.md, "Calling contexts":
"Process-wide state: a call changes none (contract `side-effects`): ... numpy's error state
inside `np.errstate`".

Smallest input: ``async_tensor_h2d(np.arange(32769, dtype=np.int32), device='cpu'); np.getbufsize()``.
Reference: ``8192`` (as before the call). Bug: ``65536``.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _serial_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """``dst.copy_(src)`` into a staging tensor of the reference's own, on the calling thread alone; returns ``dst``.

    (The reference's docstring; see h2d_impl/h2d.py.)
    """
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():
        return dst.copy_(src)
    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:
        np.setbufsize(2 * _TORCH_GRAIN)  # BUG (r50 b06): a process-wide numpy setting, never restored
        with np.errstate(all="ignore"):  # a signalling NaN warns in numpy's cast, never in torch's
            np.copyto(dst.numpy(), src.numpy(), casting="unsafe")
        return dst
    _copy_in_pieces(dst, src)
    return dst


def target() -> Target:
    f = fork("b06", h2d={"_serial_copy": _serial_copy})
    return make_target(
        "b06_numpy_bufsize_left",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06"),
    )
