"""b16 (GPU-only): the staged payload sized by the *source's* item size instead of the target dtype's.

Where: ``h2d_impl/h2d.py::_to_device`` (the device half of ``async_tensor_h2d``, after
validation; a host target never reaches it).

Change (one line)::

    nbytes = source.numel() * dtype.itemsize            # reference: bytes of the converted payload
    nbytes = source.numel() * source.element_size()     # bug: bytes of the source

The staging holds the data *converted to the target dtype*, so a widening conversion
(uint8/int16/int32 arrays, bool, float16 into int64, float32 ...) stages more bytes than
were reserved. Small payloads: the small pool reserves too short a slice, so the next small
call's slice overlaps this one's tail (corrupted when both copies are still queued), and a
payload whose source fits 256 KiB but whose converted bytes exceed the 1 MiB chunk cannot be
viewed in it at all (``RuntimeError`` from ``as_strided``: "setStorage ... out of bounds").
Narrowing conversions are only routed by a larger size (harmless).

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d`` docstring: "unpinned tensors, numpy
arrays, lists and scalars are staged into pinned chunks ... (converted to the target dtype on
the host) and copied with ``non_blocking=True`` ... Payloads up to 256 KiB take a slice of a
shared 1 MiB chunk; larger ones a whole block of their power-of-two size class" and "The
source may be overwritten as soon as the call returns"; docs/contracts.md, values (on the
``[cuda]`` device too): "A valid call that raises ... fails"; snapshot: "two calls queued
back to back ... both land".

On a CPU-only host every public call behaves as the control's (``_to_device`` is only called
for CUDA targets).

GPU input: ``async_tensor_h2d(np.zeros(200_000, np.uint8), device='cuda', dtype=torch.int64)``.
Reference: a ``(200000,)`` int64 tensor of zeros on ``cuda:0``. Bug: ``RuntimeError: setStorage:
sizes [200000], strides [1], storage offset 0, and itemsize 8 requiring a storage size of
1600000 are out of bounds for storage of size 1048576``. Queued behind busy work,
``a = async_tensor_h2d(np.arange(100, dtype=np.int32), device='cuda', dtype=torch.int64)``
then ``async_tensor_h2d(np.full(100, 7, np.int32), device='cuda', dtype=torch.int64)``: the bug
gives ``a[56:] == 7`` (448 bytes reserved, 800 written).
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
            return out.copy_(moved) if out is not None else moved.contiguous()
        if source.numel():
            count = _span_elements(source)
            if count <= GATHER_MAX_SPAN * source.numel():
                return _gather_span(source, count, target, out)
    nbytes = source.numel() * source.element_size()  # BUG (r48 b16): the source's item size, not the target's
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
    f = fork("b16", h2d={"_to_device": _to_device})
    return make_target(
        "b16_payload_bytes_of_source",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b16"),
    )
