"""b17 (GPU-only) - a one-element pinned tensor is sent as a kernel argument: ``torch.full(shape, x.item())``.

Where: ``h2d._to_device`` (the zero-copy branch: a pinned CPU tensor of the target dtype). It
runs only for CUDA targets: on a CPU host ``async_tensor_h2d(..., device="cpu")`` never reaches
it, and ``device="cuda"`` is refused before it (no CUDA), so every CPU call is the reference's.

Change (old -> new)::

    if _zero_copy_ok(data, source, dtype):
        if _dense(source):
    ->
    if _zero_copy_ok(data, source, dtype):
        if source.numel() == 1 and out is None:  # BUG
            return torch.full(source.shape, source.item(), dtype=dtype, device=target)
        if _dense(source):

Why an engineer writes it: Model Runner V2 keeps scalars (a step counter, ``num_tokens``, a
flag) in one-element pinned tensors; a 4-byte DMA costs a ``cudaMemcpyAsync`` (~5 us of host
time and a copy-engine launch) while ``torch.full`` passes the value as a kernel argument. The
value is read with ``.item()`` on the host, cheap for a CPU tensor, and the result is the same
number in every test that compares numbers.

Promise broken (one CUDA device, e.g. ``cuda:0``):

- docs/reference.md "Zero-copy": "a pinned tensor of the target dtype ... is DMA'd from its own
  memory"; docs/contracts.md "snapshot": for a pinned input of the target dtype "the documented
  hazard is real (an overwrite before the copy ran reaches the device: no hidden copy)". With
  ``p = torch.tensor([7], dtype=torch.int32).pin_memory()``, ``torch.cuda._sleep(10**9)``
  queued, ``r = async_tensor_h2d(p, device="cuda:0")``, then ``p[0] = 8`` and
  ``torch.cuda.synchronize()``: the reference's ``r`` is ``[8]`` (the DMA ran after the
  write), the bug's ``[7]`` (a hidden snapshot taken by ``.item()``).
- docs/contracts.md "staging": "a non-empty result comes with at least one HtoD memcpy" and a
  pinned dense input causes "exactly one Memcpy HtoD (Pinned -> Device)": the bug's profiler
  trace has no memcpy at all, only a fill kernel.
- docs/contracts.md "values" ("NaN payloads must survive when the data already has the target
  dtype, a pure copy"): a pinned float32 ``[sNaN 0x7F800001]`` comes back as ``0x7FC00001``
  (``.item()`` widens to a Python float, which quiets the signalling NaN), and a float16 NaN
  payload comes back as the canonical ``0x7E00``; the reference's DMA keeps the bits.

Smallest input: CUDA-only (see above). On the CPU, ``async_tensor_h2d(torch.tensor([7],
dtype=torch.int32), device="cpu")`` gives ``tensor([7], dtype=torch.int32)`` for both.
"""

from __future__ import annotations

from typing import Any

import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _staging
from plumbing import fork, fork_target_full


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
    """The device half of :func:`async_tensor_h2d`, after validation (see the reference)."""
    if _zero_copy_ok(data, source, dtype):
        if source.numel() == 1 and out is None:  # BUG: a pinned scalar is sent as a fill value, no DMA
            return torch.full(source.shape, source.item(), dtype=dtype, device=target)
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
    return fork_target_full("b17_pinned_scalar_sent_as_fill", fork("b17", h2d={"_to_device": _to_device}))
