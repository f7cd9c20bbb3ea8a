"""GPU only: the staged payload's size is taken from the source's itemsize, not the target dtype's.

``_to_device`` computes ``nbytes = source.numel() * source.element_size()`` (the
"payload", ``source.nbytes``) where the staging holds ``dtype`` elements. For a widening
conversion (int8/int16/int32/float16 data into int64/float32/float64) the small pool
reserves too few bytes: the slice runs into the next calls' slices (a queued copy's
staging overwritten: corrupted results behind a busy stream), or past the 1 MiB chunk
(``RuntimeError`` from ``as_strided``): ``np.zeros(200_000, np.int8)`` with
``dtype=torch.int64`` passes the 256 KiB small-path test as 200 KB but needs 1.6 MB.
Larger payloads are sized again by ``_copy_pooled`` and stay right; host targets never
stage.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.h2d_impl import _staging
from h2d_contracts.h2d_impl.h2d import (
    _TORCH_GRAIN,
    GATHER_MAX_SPAN,
    _copy_pooled,
    _dense,
    _dma,
    _gather_span,
    _host_copy,
    _span_elements,
    _zero_copy_ok,
)

from ._common import make_target
from ._patch import entry_points


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
    """The reference's ``_to_device`` sizing the payload by the source's itemsize."""
    if _zero_copy_ok(data, source, dtype):
        if _dense(source):
            if source.is_contiguous() or (out is not None and out.stride() == source.stride()):
                return out.copy_(source, non_blocking=True) if out is not None else source.to(target, non_blocking=True)
            moved = source.to(target, non_blocking=True)
            return out.copy_(moved) if out is not None else moved.contiguous()
        if source.numel():
            count = _span_elements(source)
            if count <= GATHER_MAX_SPAN * source.numel():
                return _gather_span(source, count, target, out)
    nbytes = source.numel() * source.element_size()  # BUG: the staging holds dtype's elements: dtype.itemsize
    if nbytes <= small_max:
        pool = _staging.pool_for(target, small_chunk, pin, small=True)
        with pool.lock:
            staging = pool.small_tensor(source.shape, dtype, nbytes)
            staging.copy_(source) if nbytes <= _TORCH_GRAIN else _host_copy(staging, source)
            return _dma(staging, target, out)
    return _copy_pooled(source, dtype, target, out, min_block, pin=pin)


def target():
    fn, _ = entry_points(to_device=_to_device)
    return make_target("b24-small-path-source-itemsize", fn=fn, notes="GPU only")
