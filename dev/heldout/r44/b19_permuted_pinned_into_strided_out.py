"""b19 (GPU): a pinned, permuted (transposed, channels-last) input is copied straight into an ``out`` of other strides.

Where: ``h2d._to_device`` (the zero-copy branch for pinned inputs of the target dtype on
a CUDA target).

The change::

    if source.is_contiguous() or (out is not None and out.stride() == source.stride()):
        return out.copy_(source, non_blocking=True) if out is not None else source.to(target, non_blocking=True)
    ->
    if source.is_contiguous() or out is not None:
        ...

Why an engineer writes it: ``out.copy_`` accepts any pair of layouts, so the
stride-equality test reads as an unnecessary special case ("let ``copy_`` handle the
layout, one op instead of a DMA plus a device copy"). For a host-to-device copy whose
strides differ torch cannot DMA the source as it lies: ``copy_`` first makes a contiguous
temporary of the source *on the host*, in pageable memory, and copies that. The call
becomes a pageable-to-device ``cudaMemcpyAsync``: the host waits for the stream's queued
work before it can issue it, and pays a host pass over the whole payload, the two costs
the zero-copy path exists to avoid.

Promise broken: docs/reference.md "How it stages", 1. *Zero-copy*: "a dense pinned tensor
of the target dtype (contiguous, or a permutation such as ``.t()`` or channels-last) is
DMA'd as it lies, a permuted one then made contiguous on the device"; ``async_tensor_h2d``
docstring ("Dense ones (contiguous, or a permutation ...) are DMA'd with their strides");
README ``staging`` ("no pageable-to-device copy in a ``torch.profiler`` trace") and
``non-blocking``; "Which pattern when": "Avoid ... ``.to()`` on a strided pinned view: both
make the host wait".

How a CUDA call shows it: ``x = torch.empty(4096, 4096, dtype=torch.int32,
pin_memory=True).t()`` (64 MiB, dense, permuted), ``out = torch.empty(4096, 4096,
dtype=torch.int32, device="cuda")``, 100 ms of ``torch.cuda._sleep`` queued, then
``async_tensor_h2d(x, out=out)``: reference returns at once (one "Memcpy HtoD (Pinned ->
Device)", a device transpose); bug returns only after the sleep, its trace shows "Memcpy
HtoD (Pageable -> Device)". Values agree. On a CPU-only host ``_to_device`` is never
called (host targets are copied by ``_stage``): nothing differs.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging

from ._bu import bu_fork
from ._common import Fork, fork, make_target

# flake8: noqa: F821  (the function below resolves the reference's names in the fork)


def _to_device(
    data: Any,
    source: torch.Tensor,
    dtype: torch.dtype,
    target: torch.device,
    out: torch.Tensor | None,
    *,
    pin: bool,
    min_block: int = _staging.MIN_BLOCK_BYTES,
    small_max: int = _staging.SMALL_MAX_BYTES,
    small_chunk: int = _staging.SMALL_CHUNK_BYTES,
) -> torch.Tensor:
    """The device half of :func:`async_tensor_h2d`, after validation: zero-copy, device gather or pooled staging."""
    if _zero_copy_ok(data, source, dtype):
        if _dense(source):
            if source.is_contiguous() or out is not None:  # BUG: "out.copy_ takes any layout"; was: out.stride() == source.stride()
                return out.copy_(source, non_blocking=True) if out is not None else source.to(target, non_blocking=True)
            # Dense in a permutation (transposed, channels-last): DMA the storage as it lies (.to
            # keeps the strides), then reorder on the device, on the same stream: no host pass
            # (staging a 16 MiB transposed tensor cost 11.7 ms of host time on the H200,
            # measured by the bench, see docs/performance.md).
            moved = source.to(target, non_blocking=True)
            return out.copy_(moved) if out is not None else moved.contiguous()
        if source.numel():
            count = _span_elements(source)
            if count <= GATHER_MAX_SPAN * source.numel():
                return _gather_span(source, count, target, out)
    nbytes = source.numel() * dtype.itemsize
    if nbytes <= small_max:
        pool = _staging.pool_for(target, small_chunk, pin, small=True)
        with pool.lock:  # held until the copy reading the slice is queued (the chunk's event then covers it)
            staging = pool.small_tensor(source.shape, dtype, nbytes)
            # on this thread alone (small_max <= SERIAL_COPY_MAX_BYTES by default); with fewer bytes
            # than the grain's elements torch's own copy_ is serial: tested inline, two calls saved
            staging.copy_(source) if nbytes <= _TORCH_GRAIN else _host_copy(staging, source)
            return _dma(staging, target, out)
    return _copy_pooled(source, dtype, target, out, min_block, pin=pin)

def _fork() -> Fork:
    return fork("b19", h2d={"_to_device": _to_device})


def target() -> Target:
    f = _fork()
    return make_target(
        "b19_permuted_pinned_into_strided_out",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b19"),
    )
