"""Reference ``async_tensor_h2d`` and its CPU-platform variant.

Behaviour modelled on vLLM's ``vllm.utils.async_tensor_h2d`` after the PR "Buffer util
simplifications" (signature ``(data, device=None, dtype=None, out=None)``), made safe
where the model is not: every check raises a named exception (the model uses
``assert``, which ``python -O`` removes), ``out`` never broadcasts, and nothing is
written when a call fails.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import torch

from ._host import (
    as_source_tensor,
    check_dtype_arg,
    check_representable,
    describe,
    pin_memory_available,
)

__all__ = ["async_tensor_h2d", "async_tensor_h2d_cpu", "async_tensor_h2d_pipelined"]

@functools.cache
def _cuda_device_count() -> int:
    """CUDA devices visible to this process, 0 where CUDA is unusable; read once.

    ``torch.cuda.is_available()`` reads an environment variable and asks the driver on
    every call: two of them were about 2 us of a 25 us small call on the H200 (cProfile
    in reports/bench/2026-12-01_h200_18ceb4a/profile.txt). Visibility cannot change
    within a process (CUDA_VISIBLE_DEVICES is read when CUDA initialises).
    """
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


@functools.lru_cache(maxsize=128)
def _parse_device(device: torch.device | str | int) -> torch.device:
    """Parse a device spelling once (``torch.device(str)`` costs ~1 us a call); cached."""
    return torch.device(device) if not isinstance(device, int) else torch.device("cuda", device)


def _resolve_device(device: Any, name: str = "device") -> torch.device:
    """Parse ``device`` and give CUDA devices an explicit index (the current device)."""
    if isinstance(device, (bool, np.bool_)) or not isinstance(device, (torch.device, str, int, np.integer)):
        raise TypeError(f"{name} must be a torch.device, str or int, got {device!r}")
    if isinstance(device, np.integer):
        device = int(device)
    if isinstance(device, int) and device < 0:
        raise ValueError(f"{name}={device} is a negative device index")
    try:
        dev = _parse_device(device)
    except (RuntimeError, ValueError) as exc:
        raise ValueError(f"{name}={device!r} is not a valid device string") from exc
    if dev.type == "cpu":
        if dev.index not in (None, 0):
            raise ValueError(f"{name}={dev} names a CPU index; the host is 'cpu'")
        return _CPU
    if dev.type != "cuda":
        raise ValueError(f"{name}={dev} is not supported: the target must be 'cpu' or a CUDA device")
    count = _cuda_device_count()
    if not count:
        raise ValueError(f"{name}={dev} but CUDA is not available in this process")
    index = torch.cuda.current_device() if dev.index is None else dev.index
    if not 0 <= index < count:
        raise ValueError(f"{name}={dev} but only {count} CUDA device(s) are visible")
    return dev if dev.index is not None else torch.device("cuda", index)


_CPU = torch.device("cpu")


def _check_out(out: Any) -> None:
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a torch.Tensor or None, got {type(out).__qualname__}")
    if out.layout != torch.strided:
        raise TypeError(f"out has layout {out.layout}; only strided (dense) tensors can be written")
    check_dtype_arg(out.dtype, name="out.dtype")
    if out.requires_grad:
        raise ValueError("out requires grad; in-place writes into it would be recorded by autograd")
    if out.is_inference() and not torch.is_inference_mode_enabled():
        # torch's copy_ would write first and raise RuntimeError after (nothing must be written).
        raise ValueError("out is an inference tensor (made under torch.inference_mode()); write it inside inference mode")
    if out.is_nested:
        raise TypeError("out is a nested tensor; only strided (dense) tensors can be written")
    if _may_overlap(out):
        raise ValueError(f"out has internally overlapping memory (several elements share an address): {describe(out)}")


def _may_overlap(t: torch.Tensor) -> bool:
    """True unless the strides provably give every element its own address.

    Sorted by stride, each dimension of size > 1 must step past everything the smaller
    dimensions reach (``stride_i > sum_j<i stride_j * (size_j - 1)``). That covers
    stride 0 (``expand``) and ``as_strided`` overlaps; exotic interleavings that do not
    overlap are rejected too, which is safe.
    """
    reach = 0
    for stride, size in sorted((st, sz) for st, sz in zip(t.stride(), t.shape) if sz > 1):
        if stride <= reach:
            return True
        reach += stride * (size - 1)
    return False


def _byte_span(t: torch.Tensor) -> tuple[int, int]:
    """``[first, last)`` host addresses any element of non-empty ``t`` occupies."""
    lo = hi = t.data_ptr()
    for stride, size in zip(t.stride(), t.shape):
        reach = stride * (size - 1) * t.element_size()
        lo, hi = (lo + reach, hi) if reach < 0 else (lo, hi + reach)
    return lo, hi + t.element_size()


def _shares_memory(a: Any, b: torch.Tensor) -> bool:
    """Whether tensor ``a`` and host tensor ``b`` may touch the same host bytes.

    Compares the byte ranges the two views span (not their whole storages), so disjoint
    slices of one buffer (``b[:4]`` into ``b[4:]``) are independent; interleaved views
    (``b[::2]`` and ``b[1::2]``) are conservatively treated as sharing.
    """
    if not isinstance(a, torch.Tensor) or a.device.type != "cpu" or b.device.type != "cpu" or not a.numel() or not b.numel():
        return False
    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)
    return alo < bhi and blo < ahi


def _prepare(data: Any, device: Any, dtype: Any, out: Any, *, cpu_only: bool):
    """Validate every argument and return (source, target dtype, target device)."""
    check_dtype_arg(dtype)
    if out is not None:
        _check_out(out)
    if device is None and out is None:
        raise TypeError("a target is required: pass device=... or out=... (got neither)")
    target = _resolve_device(device) if device is not None else None
    if out is not None:
        out_device = out.device  # a CUDA tensor's device always carries its index
        if target is not None and target != out_device:
            raise ValueError(f"device={target} disagrees with out.device={out_device}")
        target = out_device
        if dtype is not None and dtype != out.dtype:
            raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}; it is never converted silently")
        dtype = out.dtype
    if cpu_only and target.type != "cpu":
        raise ValueError(f"the CPU-platform variant only targets host memory, got device {target}")
    if target.type not in ("cpu", "cuda"):
        raise ValueError(f"out.device={target} is not supported: the target must be 'cpu' or a CUDA device")
    source, own_dtype = as_source_tensor(data, infer_dtype=dtype is None)
    dtype = own_dtype if dtype is None else dtype
    if out is not None and tuple(out.shape) != tuple(source.shape):
        raise ValueError(
            f"out.shape={tuple(out.shape)} but data has shape {tuple(source.shape)}; "
            "out is never broadcast or truncated"
        )
    if out is not None and not (isinstance(data, torch.Tensor) and out is data) and _shares_memory(source, out):
        raise ValueError("out shares memory with data; copy data first or pass another out")
    check_representable(source, dtype)
    return source, dtype, target


def _stage(source: torch.Tensor, dtype: torch.dtype, pin: bool) -> torch.Tensor:
    """A fresh contiguous host copy of ``source`` converted to ``dtype`` (pinned if ``pin``).

    The pinned block comes from torch's caching host allocator, which records the
    stream of every non_blocking copy that reads it and does not hand the block out
    again before that copy has run, so dropping the staging tensor after the call is
    safe and the next call cannot overwrite a queued copy's source.
    """
    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)
    staging.copy_(source)
    return staging


def _dense(t: torch.Tensor) -> bool:
    """Whether ``t``'s elements fill its bytes exactly, in some order of its dimensions.

    Contiguous tensors and permutations of them (``.t()``, channels-last) qualify; views
    with gaps (a column slice) or overlaps (``expand``) do not. Such a tensor's storage
    can be DMA'd as it lies: torch's ``.to`` keeps its strides and copies the bytes.
    """
    if t.is_contiguous():
        return True
    expected = 1
    for stride, size in sorted((st, sz) for st, sz in zip(t.stride(), t.shape) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _zero_copy_ok(data: Any, source: torch.Tensor, dtype: torch.dtype) -> bool:
    """A CPU tensor that is already pinned, dense (contiguous or a permutation of it) and of the target dtype is DMA'd as is.

    DESIGN.md: "an already pinned input is not copied again". A pinned view with gaps (a
    column slice) is staged: torch would copy it into a *pageable* contiguous tensor first
    and the "non_blocking" copy would block.
    """
    return (
        isinstance(data, torch.Tensor)
        and source.dtype == dtype
        and not source.is_conj()
        and not source.is_neg()
        and _dense(source)
        and source.is_pinned()
    )


#: Payloads of at least this many bytes take the chunked path of
#: :func:`async_tensor_h2d_pipelined` (smaller ones gain nothing from chunking).
PIPELINE_MIN_BYTES = 16 << 20
#: Chunk size of :func:`async_tensor_h2d_pipelined`, in bytes.
CHUNK_BYTES = 4 << 20


def _copy_chunked(source: torch.Tensor, dtype: torch.dtype, dst: torch.Tensor, chunk_bytes: int, *, pin: bool) -> torch.Tensor:
    """Stage ``source`` into ``dst`` (a contiguous tensor of ``source``'s shape) chunk by chunk along dim 0.

    Each chunk of at most ``max(chunk_bytes, one row)`` bytes is converted into its own
    host block (pinned if ``pin``; the caller passes ``pin=True`` for CUDA targets) from
    the caching host allocator and copied with ``non_blocking=True`` on ``dst``'s
    device's current stream, so the DMA of chunk i overlaps the host copy of chunk
    i+1 and the small blocks recycle as soon as their DMA ran. The host never waits on
    the stream, but a block whose copy is still queued is not handed out again: behind
    a busy stream with a cold cache every chunk costs a fresh ``cudaHostAlloc``
    (measured on the H200: 29 ms for a first 64 MiB call,
    reports/bench/2026-11-30_nonblocking_diag.txt).
    """
    if source.is_contiguous():
        src, dst_view = source.reshape(-1), dst.view(-1)
    else:
        src, dst_view = source, dst
    row_bytes = max(1, (src[0].numel() if src.dim() > 1 else 1) * dtype.itemsize)
    step = max(1, chunk_bytes // row_bytes)
    for start in range(0, src.shape[0], step):
        piece = src[start : start + step]
        staging = torch.empty(piece.shape, dtype=dtype, device="cpu", pin_memory=pin)
        staging.copy_(piece)
        dst_view[start : start + step].copy_(staging, non_blocking=True)
    return dst


def async_tensor_h2d(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """Copy host data to a device tensor without blocking the host thread.

    Models vLLM's ``async_tensor_h2d(data, device=None, dtype=None, out=None)``.

    Args:
        data: host data of shape ``S``: a (nested, rectangular) list or tuple of
            bool/int/float/complex, a Python or numpy scalar (``S == ()``), a
            ``numpy.ndarray`` in any layout (negative strides, Fortran order,
            broadcast, non-native byte order, read-only), or a CPU ``torch.Tensor`` in
            any strided layout, pinned or pageable.
        device: target device (``"cuda"``, ``"cuda:1"``, an int index, a
            ``torch.device``, or ``"cpu"``). A bare ``"cuda"`` means the current device.
            Required unless ``out`` is given; if both are given they must agree.
        dtype: target dtype. Resolution order: ``dtype`` if given, else ``out.dtype``,
            else the data's own dtype (for lists, ``torch.tensor``'s inference).
        out: optional strided tensor of shape exactly ``S`` on the target device. It is
            written in place (non-contiguous strides included) and returned. Refused:
            layouts whose elements may share an address (``expand``, overlapping
            ``as_strided``; a few exotic interleavings that do not overlap are refused
            too, conservatively), inference tensors outside inference mode, and host
            memory overlapping ``data``'s bytes.

    Returns:
        ``out`` itself if given, else a new contiguous tensor of shape ``S`` and the
        resolved dtype on ``device``. It never shares storage with ``data``.

    Copy semantics:
        - CUDA target: unpinned tensors, numpy arrays, lists and scalars are staged
          into a fresh contiguous pinned buffer (converted to the target dtype on the
          host), then copied with ``non_blocking=True`` on the target device's current
          stream. The source may be overwritten as soon as the call returns (the copy
          reads the staging buffer, a snapshot). One staging buffer per call; see
          :func:`async_tensor_h2d_pipelined` for the chunked variant.
        - A CPU tensor that is already pinned, dense (contiguous, or a permutation of
          contiguous: ``.t()``, channels-last) and of the target dtype is *not* copied
          again: the DMA reads it directly (a permuted one is DMA'd with its strides and
          made contiguous on the device). Hazard, as in vLLM: do not write to it until
          the copy has completed; wait with
          ``torch.cuda.current_stream(device).synchronize()`` or an event recorded
          right after the call. A pinned view with gaps (e.g. a column slice) is
          staged, since torch would otherwise make a pageable contiguous copy and the
          "non_blocking" copy would block.
        - Without pinned memory (CPU-only builds), the same semantics hold without
          pinning. A ``"cpu"`` target always gets a fresh copy.

    Raises:
        TypeError: ``data`` of an unsupported kind or dtype (None, str, generators,
            object arrays, sparse tensors); ``dtype`` not a supported torch dtype;
            ``dtype`` disagreeing with ``out.dtype``; ``out`` not a strided tensor;
            neither ``device`` nor ``out`` given; complex data into a real dtype.
        ValueError: ragged lists; ``out.shape`` different from the data's shape
            (broadcastable shapes included); NaN/inf or out-of-range values for an
            integer dtype; ``data`` not in host memory; ``device`` invalid,
            unavailable or disagreeing with ``out.device``; ``out`` requiring grad or
            with overlapping memory.

        On any exception nothing has been written: ``out`` is untouched.
    """
    return _async_h2d(data, device, dtype, out, chunk_bytes=None)


def async_tensor_h2d_pipelined(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """:func:`async_tensor_h2d` with chunked, pipelined staging for large payloads (opt-in).

    Same signature, semantics and exceptions. Staged payloads of ``PIPELINE_MIN_BYTES``
    (16 MiB) or more going to a contiguous destination are staged and copied in
    ``CHUNK_BYTES`` (4 MiB) chunks, each in its own pinned block, so the DMA of one
    chunk overlaps the host copy of the next.

    When to use it (H200, torch 2.11, reports/bench/): for large unpinned inputs sent
    back to back it reached 87-94% of the pinned DMA bandwidth at 16 MiB-1 GiB (single
    staging: 12-69%). The cost: behind a busy stream with a cold host-allocator cache
    the first call pays one ``cudaHostAlloc`` per chunk (29-38 ms for 64 MiB), which
    fails the kit's non-blocking contract (20 ms budget), so it is not the default.
    """
    return _async_h2d(data, device, dtype, out, chunk_bytes=CHUNK_BYTES)


def _async_h2d(
    data: Any, device: Any, dtype: Any, out: Any, *, chunk_bytes: int | None, min_bytes: int = PIPELINE_MIN_BYTES
) -> torch.Tensor:
    """:func:`async_tensor_h2d` with the chunking knobs exposed (``chunk_bytes=None``: one staging buffer).

    For benchmarks (chunked vs single staging in one run) and for tests that drive the
    chunked path with small inputs.
    """
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)
    if target.type == "cpu":
        if out is not None:
            return out.copy_(source)
        return _stage(source, dtype, pin=False)
    if not _cuda_device_count() or target.index == torch.cuda.current_device():
        pin = pin_memory_available()
        return _to_device(data, source, dtype, target, out, pin=pin, chunk_bytes=chunk_bytes if pin else None, min_bytes=min_bytes)
    # Another device than the current one: pinned staging blocks (and the first-use
    # pinned-memory probe) are allocated through the CUDA context of the current device,
    # so make the target current for the call; torch switches back without creating a
    # context on the previous device (c10::cuda::MaybeSetDevice). Without this a call
    # aimed at cuda:1 created a context on cuda:0 (2x H200, issue 10: device-hygiene).
    with torch.cuda.device(target):
        pin = pin_memory_available()
        return _to_device(data, source, dtype, target, out, pin=pin, chunk_bytes=chunk_bytes if pin else None, min_bytes=min_bytes)


def _to_device(
    data: Any,
    source: torch.Tensor,
    dtype: torch.dtype,
    target: torch.device,
    out: torch.Tensor | None,
    *,
    pin: bool,
    chunk_bytes: int | None,
    min_bytes: int,
) -> torch.Tensor:
    """The device half of :func:`_async_h2d`, after validation: pick zero-copy, chunked or single staging.

    ``source`` is the validated host tensor of ``data``; ``target`` the resolved device;
    ``pin`` whether staging blocks are pinned; ``chunk_bytes=None`` disables chunking.
    Every copy into the destination is issued with ``non_blocking=True`` (on the current
    stream of ``target``) from a pinned block or, zero-copy, from ``data`` itself.

    Written device-generically (nothing here names CUDA) so that its decisions can be
    checked on a CPU-only machine with ``target=cpu`` under a simulated pinned
    allocator (tests/test_h2d_impl_trace.py); on a real GPU the contracts check them.
    """
    if _zero_copy_ok(data, source, dtype):
        if source.is_contiguous() or (out is not None and out.stride() == source.stride()):
            return out.copy_(source, non_blocking=True) if out is not None else source.to(target, non_blocking=True)
        # Dense in a permutation (transposed, channels-last): DMA the storage as it lies (.to
        # keeps the strides), then reorder on the device, on the same stream: no host pass
        # (staging a 16 MiB transposed tensor cost 11.7 ms of host time on the H200,
        # reports/bench/2026-12-01_h200_18ceb4a).
        moved = source.to(target, non_blocking=True)
        return out.copy_(moved) if out is not None else moved.contiguous()
    if (
        chunk_bytes
        and source.dim() >= 1
        and source.numel() * dtype.itemsize >= min_bytes
        and (out is None or out.is_contiguous())
    ):
        dst = out if out is not None else torch.empty(source.shape, dtype=dtype, device=target)
        return _copy_chunked(source, dtype, dst, chunk_bytes, pin=pin)
    staged = _stage(source, dtype, pin=pin)
    if out is not None:
        return out.copy_(staged, non_blocking=True)
    return staged.to(target, non_blocking=True)


def async_tensor_h2d_cpu(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """CPU-platform variant of :func:`async_tensor_h2d` (host memory is the "device").

    Models the variant vLLM installs on CPU workers, where there is no pinned memory
    and no stream: same signature, dtype resolution, validation and exceptions as
    :func:`async_tensor_h2d`; the target must be the host.

    Args:
        data, dtype, out: as for :func:`async_tensor_h2d`; ``out`` must be a CPU tensor.
        device: ``"cpu"``, ``torch.device("cpu")`` or None (then ``out`` is required).

    Returns:
        ``out`` itself, or a new contiguous CPU tensor that never aliases ``data``.

    Raises:
        Everything :func:`async_tensor_h2d` raises, and ValueError for a non-CPU target.
    """
    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)
    if out is not None:
        return out.copy_(source)
    return _stage(source, dtype, pin=False)
