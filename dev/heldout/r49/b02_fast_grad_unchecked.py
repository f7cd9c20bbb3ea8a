"""b02 (GPU-only): the fast path no longer refuses tensors that require grad: the result (and the small pool's chunk) joins the caller's autograd graph.

Where: ``h2d_impl/h2d.py::_fast_path``, the tensor branch's plain-tensor test.

Change (one condition removed, "engines never pass tensors that require grad")::

    if (data.requires_grad or data.layout is not torch.strided or ...): return None   # reference
    if (data.layout is not torch.strided or ...): return None                         # bug

The general path detaches (``as_source_tensor``); the fast path does not. A pinned tensor
that requires grad is returned as ``data.to(target, non_blocking=True)``, a result with
``grad_fn=ToCopyBackward0``. A pageable one is copied by ``staging.copy_(source)`` into a view
of the chunk's cached per-dtype view: the copy records autograd history on that cached view,
so this result *and every later result of that dtype staged in the same chunk* (plain lists
included) have ``requires_grad=True`` and a ``grad_fn``. A conversion to an integer dtype
raises ``RuntimeError`` ("Can't call numpy() on Tensor that requires grad") from
``check_representable`` instead of converting.

Why it works on a CPU: ``_fast_path`` returns None before the tensor branch unless ``device``
resolved to a CUDA device; on a CPU-only host every call takes the general path, which
detaches, as the control does.

Promise broken: docs/reference.md (What it promises): "**Result**: `out` itself, else a new
contiguous tensor; never sharing memory with `data`, never part of the caller's autograd
graph."; its table: "a tensor that requires grad ... | detached"; docs/contracts.md, values:
"never part of the caller's autograd graph (`requires_grad=False`, no `grad_fn`)".

GPU input: ``async_tensor_h2d([0], device='cuda:0')``, then
``r = async_tensor_h2d(torch.ones(2, requires_grad=True), device='cuda:0')``. Reference:
``r.requires_grad`` False, ``r.grad_fn`` None. Bug: True, ``ToCopyBackward0``; and afterwards
``async_tensor_h2d([1.5], device='cuda:0').requires_grad`` is True too (reference False).
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
        if (  # BUG (r49 b02): `data.requires_grad or` dropped ("engines never pass tensors that require grad")
            data.layout is not torch.strided
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
    else:
        return None
    nbytes = source.numel() * dtype.itemsize
    if nbytes > small_max:
        return None
    check_representable(source, dtype)
    return _stage_small(source, dtype, target, None, nbytes, pin_memory_available())


def target() -> Target:
    f = fork("b02", h2d={"_fast_path": _fast_path})
    return make_target(
        "b02_fast_grad_unchecked",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02"),
    )
