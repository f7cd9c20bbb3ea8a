"""b08 (GPU-only): the fast path's pinned zero-copy made with ``torch.as_tensor(data, device=...)``, which copies with ``non_blocking=False``: the host waits for the stream.

Where: ``h2d_impl/h2d.py::_fast_path``, the pinned zero-copy return.

Change (one call, "``torch.as_tensor`` parses fewer arguments than ``Tensor.to`` and copies
only when it must")::

    return data.to(target, non_blocking=True) if data.is_contiguous() else None      # reference
    return torch.as_tensor(data, device=target) if data.is_contiguous() else None    # bug

``torch.as_tensor`` of a tensor on another device is ``data.to(device, non_blocking=False)``:
the same pinned DMA (values, dtype and contiguity are unchanged), then a synchronisation of
the current stream. A call made behind queued work returns only when that work and the copy
are done.

Why it works on a CPU: ``_fast_path`` returns None before the tensor branch unless ``device``
resolved to a CUDA device; without CUDA nothing is pinned either.

Promise broken: h2d_impl/h2d.py, ``async_tensor_h2d`` docstring, first line: "Copy host data
to a device tensor without blocking the host thread."; ``_fast_path`` docstring: "a plain,
contiguous, pinned CPU tensor of the target dtype ...: the zero-copy DMA,
``data.to(target, non_blocking=True)``"; README, non-blocking: "behind queued work (at least
100 ms, calibrated), 4-64 MB copies return while it still runs"; README, step-loop: "the calls
never waiting for the queued forward pass".

GPU input: ``x = torch.zeros(1 << 20, dtype=torch.int32).pin_memory()``;
``async_tensor_h2d(x, device='cuda:0')`` (resolves ``'cuda:0'``);
``torch.cuda._sleep(200_000_000)`` (about 100 ms); then time ``async_tensor_h2d(x,
device='cuda:0')`` on the host. Reference: returns in microseconds, the stream still busy.
Bug: returns after the sleep (about 100 ms), ``torch.cuda.current_stream().query()`` already
True. (Any pinned input of the target dtype, one element included.)
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
                # BUG (r49 b08): torch.as_tensor "parses fewer arguments than Tensor.to and copies only when it must"
                return torch.as_tensor(data, device=target) if data.is_contiguous() else None
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
    f = fork("b08", h2d={"_fast_path": _fast_path})
    return make_target(
        "b08_fast_pinned_as_tensor",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b08"),
    )
