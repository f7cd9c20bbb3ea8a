"""b01 (GPU-only): the fast path's pinned-memory test dropped: a pageable tensor of the target dtype is handed to ``Tensor.to(non_blocking=True)`` instead of being staged.

Where: ``h2d_impl/h2d.py::_fast_path``, the tensor branch (no ``out``, ``device`` a spelling
already resolved to the current CUDA device).

Change (the ``is_pinned()`` test removed, "about 2 us of driver query; ``.to(non_blocking=True)``
takes pinned and pageable alike")::

    if dtype is None or dtype is data.dtype:                       # reference
        if data.is_pinned():
            return data.to(target, non_blocking=True) if data.is_contiguous() else None
        dtype = data.dtype

    if dtype is None or dtype is data.dtype:                       # bug
        return data.to(target, non_blocking=True) if data.is_contiguous() else None

Every contiguous CPU tensor of the target dtype now takes the zero-copy return, pinned or not,
and at any size (the ``small_max`` test comes later). From pageable memory that is a pageable
``cudaMemcpyAsync``: the driver stages it itself and the host waits for the stream (at least
for payloads past its own small bounce buffers). Values are right; pageable non-contiguous
tensors and conversions still take the staging.

Why it works on a CPU: ``_fast_path`` returns None before the tensor branch unless ``device``
resolved to a CUDA device (``_RESOLVED`` never holds one without CUDA): every public call takes
the general path, as the control's.

Promise broken: h2d_impl/h2d.py, ``async_tensor_h2d`` docstring: "CUDA target: unpinned
tensors, numpy arrays, lists and scalars are staged into pinned chunks of the per-device
staging pool (converted to the target dtype on the host) and copied with
``non_blocking=True`` on the target device's current stream", and its first line "Copy host
data to a device tensor without blocking the host thread."; docs/reference.md (Which pattern
when): "**Avoid** `tensor.to(device, non_blocking=True)` from pageable memory for large
payloads, and `.to()` on a strided pinned view: both make the host wait."; README, staging:
"no pageable-to-device copy in a `torch.profiler` trace".

GPU input: ``async_tensor_h2d([0], device='cuda:0')`` (resolves ``'cuda:0'``), then under
``torch.profiler`` ``async_tensor_h2d(torch.arange(4, dtype=torch.int32), device='cuda:0')``.
Reference: one "Memcpy HtoD (Pinned -> Device)" from a slice of the small pool's chunk. Bug:
a "Memcpy HtoD (Pageable -> Device)". Behind 100 ms of ``torch.cuda._sleep``,
``async_tensor_h2d(torch.zeros(1 << 22, dtype=torch.int32), device='cuda:0')`` (16 MiB):
reference returns while the sleep runs (staged in a 16 MiB block); bug returns only after it.
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
            or data.is_nested
            or not data.is_cpu
            or data.dtype not in SUPPORTED_DTYPES
            or data.is_conj()
            or data.is_neg()
        ):
            return None
        if dtype is None or dtype is data.dtype:
            # BUG (r49 b01): no is_pinned() (~2 us of driver query): .to(non_blocking=True) "takes pinned and pageable alike"
            return data.to(target, non_blocking=True) if data.is_contiguous() else None
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
    f = fork("b01", h2d={"_fast_path": _fast_path})
    return make_target(
        "b01_fast_pinned_test_dropped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01"),
    )
