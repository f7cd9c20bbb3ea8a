"""b16 (CPU): the CPU-platform variant returns a read-only array of the target dtype as a view ("nobody can write it").

Where: ``h2d_impl/h2d.py::async_tensor_h2d_cpu`` (CPU workers' variant, no ``out``).

Change: a zero-copy shortcut added ("a read-only array is immutable, so the host 'device' can
use it as it lies; CPU workers save a copy")::

    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)        # reference
    if out is not None:
        return out.copy_(source)
    return _stage(source, dtype, pin=False)

    ...                                                                          # bug
    if isinstance(data, np.ndarray) and not data.flags.writeable and source.dtype == dtype \\
            and source.is_contiguous():
        return source
    return _stage(source, dtype, pin=False)

Right values at the call, every writeable input copied as before. But a read-only array is
only read-only *through that array*: a read-only view of a writeable buffer (``arr.view()`` with
the flag cleared, ``np.frombuffer`` of a ``bytearray``, a broadcast of a live array) changes
when its owner writes, and so does the "result". The result also aliases the caller's memory,
and writes through it reach the caller's "read-only" array.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d_cpu``: "Returns: ``out`` itself, or a new contiguous
CPU tensor that never aliases ``data``"; ``async_tensor_h2d``: "It never shares storage with ``data``".

Smallest input: ``base = np.arange(3); v = base.view(); v.flags.writeable = False;
r = async_tensor_h2d_cpu(v, device='cpu'); base[0] = 9; r``.
Reference: ``tensor([0, 1, 2])``. Bug: ``tensor([9, 1, 2])`` (the result is ``base``'s memory).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821


def async_tensor_h2d_cpu(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)
    if out is not None:
        return out.copy_(source)
    if isinstance(data, np.ndarray) and not data.flags.writeable and source.dtype == dtype and source.is_contiguous():
        return source  # BUG (r53 b16): a read-only array taken as immutable: the caller's memory returned
    return _stage(source, dtype, pin=False)


def target() -> Target:
    f = fork("b16", h2d={"async_tensor_h2d_cpu": async_tensor_h2d_cpu})
    return make_target(
        "b16_cpu_variant_readonly_zero_copy",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b16"),
    )
