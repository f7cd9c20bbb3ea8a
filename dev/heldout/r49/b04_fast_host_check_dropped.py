"""b04 (GPU-only): the fast path's host-memory test dropped: a device tensor passed as ``data`` is copied back and forth instead of refused.

Where: ``h2d_impl/h2d.py::_fast_path``, the tensor branch's plain-tensor test.

Change (one condition removed, "host data is all that reaches a decode step")::

    if (... or data.is_nested or not data.is_cpu or data.dtype not in SUPPORTED_DTYPES ...): return None   # reference
    if (... or data.is_nested or data.dtype not in SUPPORTED_DTYPES ...): return None                      # bug

A CUDA tensor is not pinned (``is_pinned()`` is False off the host), so it is "staged":
``staging.copy_(source)`` copies it device-to-host into the small pool's chunk (a copy that
waits for the stream), then back to the device. The call returns a tensor where the
reference raises ``ValueError`` naming ``data``. With a conversion to an integer dtype it
raises ``TypeError`` ("can't convert cuda:0 device type tensor to numpy") from
``check_representable``; a ``meta`` tensor raises torch's ``NotImplementedError`` from the copy.

Why it works on a CPU: ``_fast_path`` returns None before the tensor branch unless ``device``
resolved to a CUDA device; on a CPU-only host every call, bad ones included, takes the
general path, which refuses non-host data as the control does.

Promise broken: h2d_impl/h2d.py, ``async_tensor_h2d`` docstring, Raises: "ValueError: ...
``data`` not in host memory"; ``_fast_path`` docstring: "anything else, bad input included,
returns None before any work and takes the general path, which validates and raises as
documented"; README, bad-input: "61 kinds of bad data, `out`, `dtype` and `device`, cold and
after valid calls that warm the target's caches: the documented exception".

GPU input: ``async_tensor_h2d([0], device='cuda:0')`` (warms ``'cuda:0'``), then
``async_tensor_h2d(torch.ones(2, device='cuda:0'), device='cuda:0')``. Reference:
``ValueError: data must be a host (CPU) tensor, got data.device=cuda:0``. Bug:
``tensor([1., 1.], device='cuda:0')``. (Cold, the first call with ``'cuda:0'`` still raises: the
bug needs the spelling resolved.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def _fast_path(data: Any, device: Any, dtype: Any, small_max: int) -> torch.Tensor | None:
    """The engine's hot calls without the general path's layers, or None where the general path must decide.

    Taken only without ``out``, for ``device`` a spelling already resolved to a CUDA device with
    its index (:data:`_RESOLVED`) that is the current one, and ``dtype`` None or a supported torch
    dtype; anything else, bad input included, returns None before any work and takes the general
    path, which validates and raises as documented. Two calls:

    - a plain, contiguous, pinned CPU tensor of the target dtype (not requiring grad, without
      conj/neg bits): the zero-copy DMA, ``data.to(target, non_blocking=True)``, as
      :func:`_to_device`'s zero-copy branch;
    - a flat list or tuple (:func:`_host._flat_list`), a plain ``numpy.ndarray`` or a plain
      pageable CPU tensor of at most ``small_max`` bytes in the target dtype: the same
      source (:func:`_host._flat_list`, :func:`_host._numpy_to_tensor`), the same
      :func:`check_representable`, and the same staging as :func:`_to_device`'s small
      branch (:func:`_stage_small`).

    Each input is tested for pinned memory once (``is_pinned()`` asks the driver: about 2 us on
    the H200 host), and only where that decides the path (the data's own dtype). Written
    because the general path's layers (argument checks, device resolution, the zero-copy test,
    the pool lookup: about 4 us of a 9 us small call on the CPU machine,
    ``bench/host_prep_timings.py``; docs/performance.md) are paid on every decode step.
    tests/reference/test_fast_paths.py checks that it takes what the general path would stage or
    DMA in the same way, and raises what the general path raises.
    """
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
            or data.is_nested  # BUG (r49 b04): `or not data.is_cpu` dropped ("host data is all that reaches a decode step")
            or data.dtype not in SUPPORTED_DTYPES
            or data.is_conj()
            or data.is_neg()
        ):
            return None
        if dtype is None or dtype is data.dtype:
            if data.is_pinned():
                return data.to(target, non_blocking=True) if data.is_contiguous() else None
            dtype = data.dtype
        source = data
    elif kind is list or kind is tuple:
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
    if nbytes > small_max:
        return None
    check_representable(source, dtype)
    return _stage_small(source, dtype, target, None, nbytes, pin_memory_available())


def target() -> Target:
    f = fork("b04", h2d={"_fast_path": _fast_path})
    return make_target(
        "b04_fast_host_check_dropped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04"),
    )
