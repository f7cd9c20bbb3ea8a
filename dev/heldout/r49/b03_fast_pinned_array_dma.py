"""b03 (GPU-only): a numpy array over pinned memory is DMA'd from its own memory, as a pinned tensor is: no snapshot.

Where: ``h2d_impl/h2d.py::_fast_path``, the ``numpy.ndarray`` branch.

Change (two lines added, "arrays over pinned memory, such as ``CpuGpuBuffer.np``, the engine's
per-step inputs, need no host copy")::

    source = _numpy_to_tensor(data)                     # reference: then staged (_stage_small)
    if dtype is None:
        dtype = source.dtype

    ... same, then (bug):
    if dtype is source.dtype and source.is_contiguous() and source.is_pinned():
        return source.to(target, non_blocking=True)

``torch.from_numpy`` of an array whose bytes lie in a ``cudaHostAlloc`` block is a tensor that
``is_pinned()``; the bug hands it to a non-blocking DMA that reads the array's memory when the
stream reaches it. An overwrite of the array right after the call (which the reference allows
for arrays) then reaches the device. Values are right when nothing is overwritten; pageable
arrays (nearly all of them) are staged as before.

Why it works on a CPU: ``_fast_path`` returns None before the array branch unless ``device``
resolved to a CUDA device; and without CUDA no array is pinned.

Promise broken: h2d_impl/h2d.py, ``async_tensor_h2d`` docstring: "CUDA target: unpinned
tensors, numpy arrays, lists and scalars are staged into pinned chunks ... The source may be
overwritten as soon as the call returns (the copy reads the staging, a snapshot)." (only "A
CPU tensor that is already pinned" is read in place); docs/reference.md (Which pattern when):
"**Data the caller changes or drops after the call** (lists, arrays, pageable tensors):
`async_tensor_h2d`, which snapshots it".

GPU input: ``buf = torch.ones(4, dtype=torch.int32).pin_memory(); arr = buf.numpy()``;
``async_tensor_h2d([0], device='cuda:0')``; ``torch.cuda._sleep(100_000_000)``;
``r = async_tensor_h2d(arr, device='cuda:0'); arr[:] = 2; torch.cuda.synchronize()``.
Reference: ``r == [1, 1, 1, 1]``. Bug: ``r == [2, 2, 2, 2]`` (likewise
``CpuGpuBuffer(4, dtype=torch.int32, device='cuda').np`` passed as data and refilled).
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
        if dtype is source.dtype and source.is_contiguous() and source.is_pinned():  # BUG (r49 b03): an array over
            return source.to(target, non_blocking=True)  # pinned memory (CpuGpuBuffer.np) DMA'd as a pinned tensor is
    else:
        return None
    nbytes = source.numel() * dtype.itemsize
    if nbytes > small_max:
        return None
    check_representable(source, dtype)
    return _stage_small(source, dtype, target, None, nbytes, pin_memory_available())


def target() -> Target:
    f = fork("b03", h2d={"_fast_path": _fast_path})
    return make_target(
        "b03_fast_pinned_array_dma",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03"),
    )
