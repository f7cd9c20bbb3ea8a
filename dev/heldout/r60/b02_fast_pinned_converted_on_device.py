"""b02 (GPU): the fast path DMAs a pinned tensor that needs a conversion as it lies and converts it on the device.

Where: ``h2d_impl/h2d.py::_fast_path``, the pinned-tensor branch (calls without ``out`` whose device spelling is
already resolved: ``"cuda:0"``, ``torch.device("cuda", 0)`` or ``0`` after their first call: every call of an
engine's step loop).

Change: the zero-copy branch widened from "pinned, of the target dtype" to "pinned" ("a pinned float32 tensor sent
as float16 was staged: a host pass and a pool block for bytes that are already DMA-able; send them as they lie and
convert on the device, as ``Tensor.to`` does")::

    if dtype is None or dtype is data.dtype:                              # reference
        if data.is_pinned():
            ...
            moved = data.to(target, non_blocking=True)
            return moved if contiguous else moved.contiguous()
        dtype = data.dtype

    if data.is_pinned():                                                  # bug
        ...
        if dtype is None or dtype is data.dtype:
            moved = data.to(target, non_blocking=True)
        else:
            check_representable(data, dtype)   # the same refusals as the staged route
            moved = data.to(target, non_blocking=True).to(dtype)   # DMA as it lies, convert on the device
        return moved if contiguous else moved.contiguous()
    if dtype is None:
        dtype = data.dtype

The values are the same (the device's conversion is the host's: truncation toward zero, round-to-nearest-even),
and the call still returns at once. But the result is no longer a snapshot: the DMA reads the caller's pinned
memory when the stream reaches it, so a pinned tensor of another dtype now carries the zero-copy hazard, which the
reference documents only for a pinned tensor *of the target dtype*. An engine that refills a pinned float32
scratch tensor each step and sends it as bfloat16 or float16 gets the next step's values (vLLM's own behaviour,
which docs/reference.md lists as a difference). The general path (``out=``, bare ``"cuda"``, the first call of a
spelling) still stages, so the same call is a snapshot or not depending on how the device is spelt.

Promise broken: docs/reference.md, "Where it differs from vLLM": "pinned input needing a conversion (GPU) | converted
on the device from the pinned source: an overwrite after the call changes the result | staged: a snapshot";
h2d_impl/h2d.py ``async_tensor_h2d`` docstring: "A CPU tensor that is already pinned, of the target dtype and
without conj/neg bits is *not* copied again" (only that one); docs/contracts.md, snapshot: "A staged source
(anything but a pinned tensor of the target dtype) overwritten right after the call, its copy still queued behind
50 ms of work, leaves the result unchanged".

Smallest input (one CUDA device, ``f = target().async_tensor_h2d``): ``f([0], device="cuda:0")`` (resolves the
spelling); ``x = torch.tensor([1.5, -2.5], pin_memory=True)``; ``torch.cuda._sleep(100_000_000)``;
``r = f(x, device="cuda:0", dtype=torch.float16)``; ``x.fill_(7.0)``; ``torch.cuda.synchronize()``; ``r``.
Reference: ``[1.5, -2.5]``. Bug: ``[7.0, 7.0]`` (the same call with ``device="cuda"`` or ``out=`` gives
``[1.5, -2.5]``). Nothing of it runs for a host target (the fast path declines a CPU device).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the forked h2d module's globals: _RESOLVED, _CACHEABLE, _dense, _stage_small, ...)


def _fast_path(data: Any, device: Any, dtype: Any, small_max: int) -> torch.Tensor | None:
    """The engine's hot calls without the general path's layers, or None where the general path must decide."""
    kind = type(device)
    target = _RESOLVED.get((kind, device)) if kind in _CACHEABLE else None
    if (
        target is None
        or target.type != "cuda"
        or (dtype is not None and (type(dtype) is not torch.dtype or dtype not in SUPPORTED_DTYPES))
        or (_cuda_device_count() > 1 and target.index != torch.cuda.current_device())
    ):
        return None
    kind = type(data)
    if kind is torch.Tensor:
        if (
            data.requires_grad
            or data.layout is not torch.strided
            or data.is_nested
            or not data.is_cpu
            or data.dtype not in SUPPORTED_DTYPES
            or data.is_conj()
            or data.is_neg()
            or data._is_zerotensor()
        ):
            return None
        if data.is_pinned():  # BUG (r60 b02): every pinned tensor, not only one of the target dtype
            # contiguous, or dense in a permutation (.t(), channels-last): DMA'd as it lies and a permutation made
            # contiguous on the device; a view with gaps takes the general path
            contiguous = data.is_contiguous()
            if not contiguous and not _dense(data):
                return None
            if dtype is None or dtype is data.dtype:
                moved: torch.Tensor = data.to(target, non_blocking=True)
            else:
                # BUG (r60 b02): no staging for a conversion: the DMA reads the caller's pinned memory later
                check_representable(data, dtype)  # the same refusals as the staged route
                moved = data.to(target, non_blocking=True).to(dtype)  # DMA as it lies, convert on the device
            return moved if contiguous else moved.contiguous()
        if dtype is None:
            dtype = data.dtype
        source = data
    elif kind is list or kind is tuple:
        if dtype is None or dtype in _INT_LIST_DTYPES:
            written = _stage_int_list(data, dtype or torch.int64, target, small_max)
            if written is not None:
                return written
        flat = _flat_list(data)
        if flat is None:
            return None
        source = flat[0]
        if dtype is None:
            dtype = flat[1]
    elif kind is np.ndarray:
        source = _numpy_to_tensor(data)
        if dtype is None:
            dtype = source.dtype
    else:
        return None
    nbytes = source.numel() * dtype.itemsize
    if dtype is not source.dtype:  # into its own dtype every value is representable (the check returns at once)
        check_representable(source, dtype)
    if nbytes > small_max:
        return _copy_pooled(source, dtype, target, None, _staging.MIN_BLOCK_BYTES, pin=pin_memory_available())
    return _stage_small(source, dtype, target, None, nbytes, pin_memory_available(), plain=True)


def target() -> Target:
    f = fork("b02", h2d={"_fast_path": _fast_path})
    return make_target(
        "b02_fast_pinned_converted_on_device",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02"),
    )
