"""b22 (GPU-only): the device reorder of a DMA'd dense permutation done with ``clone()``, which keeps the permuted strides.

Where: ``h2d_impl/h2d.py::_to_device``, zero-copy branch for a pinned dense permutation
(``.t()``, channels-last) of the target dtype, without ``out`` (CUDA targets only).

Change (one line)::

    return out.copy_(moved) if out is not None else moved.contiguous()   # reference
    return out.copy_(moved) if out is not None else moved.clone()        # bug: "a fresh copy, like .contiguous()"

``.to()`` keeps a dense permutation's strides, and so does ``clone()`` (its default
``memory_format`` is ``torch.preserve_format``): the result is a fresh tensor with the right
values but transposed/channels-last strides, where every result without ``out`` must be
contiguous (``.view(-1)`` and kernels that assume row-major then fail or misread).

Promise broken: docs/reference.md, "Result: `out` itself, else a new contiguous tensor" and
"Zero-copy: a dense pinned tensor of the target dtype (contiguous, or a permutation such as
`.t()` or channels-last) is DMA'd as it lies, a permuted one then made contiguous on the
device"; h2d_impl/h2d.py ``async_tensor_h2d`` docstring, Returns: "else a new contiguous
tensor"; docs/contracts.md, values: "is contiguous when made without `out` (whatever the
input's layout)".

On a CPU-only host every public call behaves as the control's (no pinned memory; host
targets never reach ``_to_device``).

GPU input: ``x = torch.arange(6, dtype=torch.int64).view(2, 3).pin_memory().t();
r = async_tensor_h2d(x, device='cuda'); r.is_contiguous(), r.stride()``.
Reference: ``(True, (2, 1))``. Bug: ``(False, (1, 3))`` (values equal).
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import bu_fork, fork, make_target

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
    """The device half of :func:`async_tensor_h2d`, after validation: zero-copy, device gather or pooled staging.

    ``source`` is the validated host tensor of ``data``; ``target`` the resolved device;
    ``pin`` whether staging is pinned. Payloads of at most ``small_max`` bytes are staged in
    one slice of the small pool's open chunk (``small_chunk`` bytes); larger ones whole, in
    one block of the pool of their size class (the next power of two, at least
    ``min_block`` bytes). Either way: one host copy, then one copy into the destination
    issued with ``non_blocking=True`` on the current stream of ``target``; zero-copy inputs
    are read from ``data``'s own pinned memory.

    Written device-generically (nothing here names CUDA) so that its decisions can be
    checked on a CPU-only machine with ``target=cpu`` under a simulated pinned allocator
    (tests/test_h2d_impl_trace.py); on a real GPU the contracts check them.
    """
    if _zero_copy_ok(data, source, dtype):
        if _dense(source):
            if source.is_contiguous() or (out is not None and out.stride() == source.stride()):
                return out.copy_(source, non_blocking=True) if out is not None else source.to(target, non_blocking=True)
            # Dense in a permutation (transposed, channels-last): DMA the storage as it lies (.to
            # keeps the strides), then reorder on the device, on the same stream: no host pass
            # (staging a 16 MiB transposed tensor cost 11.7 ms of host time on the H200,
            # measured by the bench, see docs/performance.md).
            moved = source.to(target, non_blocking=True)
            return out.copy_(moved) if out is not None else moved.clone()  # BUG (r48 b22): clone() keeps a dense permutation's strides
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


def target() -> Target:
    f = fork("b22", h2d={"_to_device": _to_device})
    return make_target(
        "b22_permuted_result_cloned",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b22"),
    )
