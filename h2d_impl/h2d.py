"""Reference ``async_tensor_h2d`` and its CPU-platform variant.

Behaviour modelled on vLLM's ``vllm.utils.async_tensor_h2d`` after the PR "Buffer util
simplifications" (signature ``(data, device=None, dtype=None, out=None)``), made safe
where the model is not: every check raises a named exception (the model uses
``assert``, which ``python -O`` removes), ``out`` never broadcasts, and nothing is
written when a call fails.
"""

from __future__ import annotations

import ctypes
import functools
import time
import typing
from typing import Any

import numpy as np
import torch

from . import _staging
from ._host import (
    _NUMPY_CASTS,
    _NUMPY_SAME,
    SUPPORTED_DTYPES,
    _flat_list,
    _numpy_to_tensor,
    as_source_tensor,
    check_dtype_arg,
    check_representable,
    describe,
    exact_integer_list,
    pin_memory_available,
)

__all__ = ["async_tensor_h2d", "async_tensor_h2d_cpu", "async_tensor_h2d_pipelined"]


@functools.cache
def _cuda_device_count() -> int:
    """CUDA devices visible to this process, 0 where CUDA is unusable; read once.

    ``torch.cuda.is_available()`` reads an environment variable and asks the driver on
    every call: two of them were about 2 us of a 25 us small call on the H200 (cProfile
    of the bench's small calls, see docs/performance.md). Visibility cannot change
    within a process (CUDA_VISIBLE_DEVICES is read when CUDA initialises).
    """
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


@functools.lru_cache(maxsize=128)
def _parse_device(device: torch.device | str | int) -> torch.device:
    """Parse a device spelling once (``torch.device(str)`` costs ~1 us a call); cached."""
    return torch.device(device) if not isinstance(device, int) else torch.device("cuda", device)


#: Spellings with an explicit index (or "cpu") -> their resolved, validated device: :data:`_CPU` (index None) or a
#: CUDA device with its index (:func:`_fast_path` tells them apart by the index). The
#: visible devices cannot change within a process, so such a spelling always resolves the
#: same way; a bare "cuda" depends on the current device and is never cached. Keyed by
#: (type, value): True == 1 as dict keys, and a bool is refused, never resolved.
_RESOLVED: dict[tuple[type, Any], torch.device] = {}
_CACHEABLE = frozenset({str, int, torch.device})


def _resolve_device(device: Any, name: str = "device") -> torch.device:
    """Parse ``device`` and give CUDA devices an explicit index (the current device)."""
    kind = type(device)
    if kind in _CACHEABLE:
        hit = _RESOLVED.get((kind, device))
        if hit is not None:
            return hit
    resolved = _resolve_uncached(device, name)
    if (
        kind in _CACHEABLE
        and len(_RESOLVED) < 256
        and (resolved.type == "cpu" or kind is int or _parse_device(device).index is not None)
    ):
        _RESOLVED[(kind, device)] = resolved
    return resolved


def _resolve_uncached(device: Any, name: str) -> torch.device:
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
#: The staging knobs' defaults, read once at import: :func:`_async_h2d` and :func:`_general_h2d` default to them, and
#: :func:`async_tensor_h2d` tries the fast path with them, exactly where ``_async_h2d`` would (an outside review found
#: the inlined call reading the module's current values, so that a patched ``_staging`` constant split the fast path
#: from the general one)
_MIN_BLOCK_DEFAULT = _staging.MIN_BLOCK_BYTES
_SMALL_MAX_DEFAULT = _staging.SMALL_MAX_BYTES


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
        raise ValueError(
            "out is an inference tensor (made under torch.inference_mode()); write it inside inference mode"
        )
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
    if (
        not isinstance(a, torch.Tensor)
        or a.device.type != "cpu"
        or b.device.type != "cpu"
        or not a.numel()
        or not b.numel()
    ):
        return False
    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)
    return alo < bhi and blo < ahi


def _prepare(
    data: Any, device: Any, dtype: Any, out: Any, *, cpu_only: bool
) -> tuple[torch.Tensor, torch.dtype, torch.device]:
    """Validate every argument and return (source, target dtype, target device)."""
    check_dtype_arg(dtype)
    if out is not None:
        _check_out(out)
    if device is None and out is None:
        raise TypeError("a target is required: pass device=... or out=... (got neither)")
    # None only when out is given (neither raised above), and then out.device replaces it below: mypy cannot
    # follow that; an ignore, not a cast, because a cast is a call on every copy's path
    target: torch.device = _resolve_device(device) if device is not None else None  # type: ignore[assignment]
    if out is not None:
        out_device = out.device  # a CUDA tensor's device always carries its index
        if target is not None and target != out_device:
            raise ValueError(f"device={target} disagrees with out.device={out_device}")
        target = out_device
        if dtype is not None and dtype != out.dtype:
            raise TypeError(f"dtype={dtype} disagrees with out.dtype={out.dtype}; it is never converted silently")
        dtype = out.dtype
    if cpu_only and target.type != "cpu":
        where = f"device={target}" if out is None else f"out.device={target}"  # the argument at fault
        raise ValueError(f"the CPU-platform variant only targets host memory, got {where}")
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
    if (
        source.dtype == torch.float64
        and isinstance(data, (list, tuple))
        and not (dtype.is_floating_point or dtype.is_complex or dtype == torch.bool)
    ):
        exact = exact_integer_list(data, source)
        source = source if exact is None else exact
    check_representable(source, dtype)
    if dtype is not source.dtype and (source.is_neg() or source.is_conj()):
        # torch's copy_ of a view with the negative bit into another dtype drops the negation into float16
        # ([-1.5] became [1.5] with torch 2.13; Tensor.to reads it right) and cannot write one into bool
        # ("neg_cpu not implemented for 'Bool'"): a conversion copies the resolved view (held-out round r51)
        source = source.resolve_neg().resolve_conj()
    return source, dtype, target


#: Host copies of at most this many bytes run on the calling thread alone (:func:`_serial_copy`).
#: torch runs a host ``copy_`` of more than 32,768 elements as one OpenMP region over every
#: core, and a region ends with its slowest thread: on the H200 host (16 cores) one other
#: busy thread anywhere on the machine made every such copy take about 8 ms, 64 KiB to
#: 16 MiB alike, where one thread took 2.3 us-1.4 ms; quiet, one thread was as fast up to
#: 256 KiB (64 KiB: 2.6-3.7 us against 7.8-10.9; 256 KiB: 7.7-10.3 against 7.6-9.1) but not
#: beyond (1 MiB: 39-52 us against 10.5-13.4)
#: (measured by ``bench/omp_contention.py`` on the H200, see docs/performance.md).
#: So small payloads, the hot path's many calls, never wait for a time slice; larger ones
#: keep the parallel copy (one region per call, see :func:`_copy_pooled`).
SERIAL_COPY_MAX_BYTES = 256 << 10
#: torch copies at most this many elements on the calling thread (``at::internal::GRAIN_SIZE``;
#: parallel from 32,769: found by an outside review of this copy).
_TORCH_GRAIN = 32768


def _serial_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """``dst.copy_(src)`` into a staging tensor of the reference's own, on the calling thread alone; returns ``dst``.

    ``dst`` is a fresh host tensor nobody else holds (no autograd history, no subclass: the
    numpy route bypasses both), ``src`` a host tensor of the same shape. The values are
    ``copy_``'s (tests/test_serial_copy.py compares the bytes over every dtype pair and
    layout; the NaN payload bits of a converting copy may differ, as they do between
    torch's own vector and scalar loops), without an OpenMP region
    (:data:`SERIAL_COPY_MAX_BYTES`): one ``numpy.copyto`` where numpy's cast is torch's
    (:data:`_NUMPY_CASTS`; its floating-point warnings silenced, as torch has none), else
    torch copies of at most :data:`_TORCH_GRAIN` elements each. Conj and neg views and
    zero tensors take torch's own ``copy_`` whole (numpy cannot read them; a neg or conj view
    arrives here only for a copy into its own dtype: :func:`_prepare` resolves it before a
    conversion, as torch's ``copy_`` drops a neg view's sign into float16). Written here because torch has no per-call thread count
    (``torch.set_num_threads`` is process-wide).
    """
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():
        return dst.copy_(src)
    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:
        with np.errstate(all="ignore"):  # a signalling NaN warns in numpy's cast, never in torch's
            np.copyto(dst.numpy(), src.numpy(), casting="unsafe")
        return dst
    _copy_in_pieces(dst, src)
    return dst


def _copy_in_pieces(dst: torch.Tensor, src: torch.Tensor) -> None:
    """``dst.copy_(src)`` as copies of at most :data:`_TORCH_GRAIN` elements each (rows of the leading dimension, recursively)."""
    n = dst.numel()
    if n <= _TORCH_GRAIN:
        dst.copy_(src)
        return
    rows = dst.shape[0]
    per_row = n // rows
    if per_row > _TORCH_GRAIN:
        for i in range(rows):
            _copy_in_pieces(dst[i], src[i])
        return
    step = _TORCH_GRAIN // per_row
    for i in range(0, rows, step):
        dst[i : i + step].copy_(src[i : i + step])


def _stage(source: torch.Tensor, dtype: torch.dtype, pin: bool) -> torch.Tensor:
    """A fresh contiguous host copy of ``source`` converted to ``dtype`` (pinned if ``pin``).

    Used for host targets (``pin=False``: the result is the caller's new tensor). A pinned
    block would come from torch's caching host allocator, which records the stream of
    every non_blocking copy that reads it and does not hand the block out again before
    that copy has run.
    """
    staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)
    return _host_copy(staging, source)


def _host_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """``dst.copy_(src)`` into the reference's own staging: on the calling thread alone while the wider side is at most :data:`SERIAL_COPY_MAX_BYTES`."""
    if dst.numel() * max(dst.element_size(), src.element_size()) <= SERIAL_COPY_MAX_BYTES:
        return _serial_copy(dst, src)
    return dst.copy_(src)


def _dense(t: torch.Tensor) -> bool:
    """Whether ``t``'s elements fill its bytes exactly, in some order of its dimensions.

    Contiguous tensors and permutations of them (``.t()``, channels-last) qualify; views
    with gaps (a column slice) or overlaps (``expand``) do not. Such a tensor's storage
    can be DMA'd as it lies: torch's ``.to`` keeps its strides and copies the bytes.
    """
    return t.is_contiguous() or _dense_permuted(t)


def _dense_permuted(t: torch.Tensor) -> bool:
    """:func:`_dense` for a ``t`` known not to be contiguous (the fast path has just asked)."""
    # The hot cases first, without the sort below (2.4 us of a pinned channels-last call's 25 us on the H200,
    # dev/layout_probe.py; docs/performance.md): a matrix not contiguous is dense only transposed (a size-1 or empty
    # one is contiguous: one stride tuple against (1, rows)), and channels-last 4-D or 5-D (one C++ check). None
    # accepts what the sort refuses.
    dims = t.dim()
    if dims == 2:
        return t.stride() == (1, t.shape[0])
    if dims == 4 and t.is_contiguous(memory_format=torch.channels_last):
        return True
    if dims == 5 and t.is_contiguous(memory_format=torch.channels_last_3d):
        return True
    expected = 1
    for stride, size in sorted((st, sz) for st, sz in zip(t.stride(), t.shape) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _zero_copy_ok(data: Any, source: torch.Tensor, dtype: torch.dtype) -> bool:
    """A CPU tensor that is already pinned, of the target dtype and without conj/neg bits is DMA'd from its own memory.

    docs/reference.md (zero-copy): an already pinned input is not copied again. Dense ones (contiguous or a
    permutation) are copied as they lie; views with gaps are gathered on the device
    (:func:`_gather_span`) when their byte span is small enough, else staged.
    """
    return (
        isinstance(data, torch.Tensor)
        and source.dtype == dtype
        and not source.is_conj()
        and not source.is_neg()
        and source.is_pinned()
    )


#: A pinned view with gaps is DMA'd whole (its byte span) and gathered on the device when
#: the span is at most this many times its payload; sparser views are staged (one host pass).
GATHER_MAX_SPAN = 4


def _span_elements(t: torch.Tensor) -> int:
    """Elements from non-empty ``t``'s first to its last, gaps included (from :func:`_byte_span`)."""
    lo, hi = _byte_span(t)
    return (hi - lo) // t.element_size()


def _gather_span(source: torch.Tensor, count: int, target: torch.device, out: torch.Tensor | None) -> torch.Tensor:
    """DMA the contiguous storage span (``count`` elements) of a pinned view with gaps, then pick its elements on the device.

    No host pass and no pinned allocation: a 64 MiB pinned column slice (stride 2) cost a
    21.5 ms host gather behind a busy stream on the H200
    (the unmutated control of a GPU mutation run failed on it), over the
    non-blocking contract's 20 ms. The span is read by the DMA later, as for any pinned
    input: the documented hazard applies.
    """
    span = source.as_strided((count,), (1,), source.storage_offset())  # contiguous, pinned: one DMA (strides >= 0)
    moved = span.to(target, non_blocking=True)
    picked = moved.as_strided(source.shape, source.stride(), moved.storage_offset())
    return out.copy_(picked) if out is not None else picked.contiguous()


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
    nbytes = source.numel() * dtype.itemsize
    if nbytes <= small_max:
        return _stage_small(source, dtype, target, out, nbytes, pin, small_chunk)
    return _copy_pooled(source, dtype, target, out, min_block, pin=pin)


# numpy 1 holds at most 32 dimensions, numpy 2 at most 64: a tensor with more (torch allows them) takes the torch view
# and copy_ on the small path, as does an empty one, whose other dimensions may exceed what numpy can hold
# ((0, 2**61) int64), both found by an outside review
_NUMPY_MAX_DIMS = 32
#: ``memmove(dst, src, count)`` between host addresses (ints), for the small path's contiguous sources. ctypes' own
#: ``memmove`` releases the GIL while it copies, so another Python thread could ``resize_`` or ``set_`` the source
#: mid-copy; the same C function called as a PYFUNCTYPE keeps it held, as numpy's ``copyto`` of a small array did
#: (outside review of the memmove route).
_memmove = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)(
    typing.cast(int, ctypes.cast(ctypes.memmove, ctypes.c_void_p).value)
)


def _stage_small(
    source: torch.Tensor,
    dtype: torch.dtype,
    target: torch.device,
    out: torch.Tensor | None,
    nbytes: int,
    pin: bool,
    small_chunk: int = _staging.SMALL_CHUNK_BYTES,
    *,
    plain: bool = False,
) -> torch.Tensor:
    """Stage ``source`` (``nbytes`` bytes in ``dtype``) in one slice of the small pool's open chunk, then one non_blocking copy.

    The small branch of :func:`_to_device` and of :func:`_fast_path` alike. ``plain``: ``source`` is known to have
    no conj or neg bit and not to be a zero tensor (the fast path tested it), so numpy can read it.
    """
    pool = _staging.pool_for(target, small_chunk, pin, small=True)
    with pool.lock:  # held until the copy reading the slice is queued (the chunk's event then covers it)
        if plain and dtype is source.dtype and dtype in _NUMPY_SAME and 0 < nbytes and source.dim() <= _NUMPY_MAX_DIMS:
            # into its own dtype, a plain tensor: memmove or numpy writes the slice, torch.from_numpy makes the DMA's source,
            # without torch's copy_ and as_strided: 0.3-0.5 us less host staging warm on the CPU machine, but 1-14 us
            # more after the host waited 50 ms, among torch-only calls (medians of two runs, dev/cold_route_probe.py);
            # on an H100 ahead in 13 of 16 idle cells, and behind a busy stream 22-31% less host time at 256 KiB,
            # mixed at 4-64 KiB (dev/busy_path_probe.py --route-ab; docs/performance.md)
            flat, address = pool.small_at(nbytes // dtype.itemsize, dtype)  # the count, without another numel()
            written = flat if source.dim() == 1 else flat.reshape(source.shape)
            # read under the lock, right before the copy: a source another thread shrank (resize_, set_) while this
            # call waited for the lock takes copyto, which reads only its current elements; with the byte count taken
            # before the lock the memmove read past a shrunk storage, or from address 0 of an emptied one (outside
            # review of the memmove route)
            if source.is_contiguous() and source.numel() * dtype.itemsize == nbytes:
                # its nbytes bytes from data_ptr() on, the same bytes copyto writes, in one memmove: without
                # source.numpy() the write took 0.47-0.49 against 1.22-1.24 us at 1-256 elements on the CPU machine
                # (bench/host_prep_timings.py), the fast path's calls 0.94-0.97x on two H100s (dev/fast_path_ab.py
                # --cuda; docs/performance.md). ctypes' memmove: numpy and torch have no copy between raw addresses.
                _memmove(address, source.data_ptr(), nbytes)
            else:
                np.copyto(written, source.numpy())
            staging = torch.from_numpy(written)
        else:
            staging = pool.small_tensor(source.shape, dtype, nbytes)
            # on this thread alone (small_max <= SERIAL_COPY_MAX_BYTES by default); with fewer bytes
            # than the grain's elements torch's own copy_ is serial: tested inline, two calls saved
            staging.copy_(source) if nbytes <= _TORCH_GRAIN else _host_copy(staging, source)
        try:
            return _dma(staging, target, out)
        finally:  # also when the copy raised after it was queued (outside review)
            opened = pool.open  # cudaStreamPerThread: the done only this thread can record (StagingPool.copied)
            if opened is not None and opened.owner is not None:
                pool.copied()


# numpy 2 refuses a Python int out of an integer dtype's range in an assignment (OverflowError); numpy 1 wrapped it
# with a DeprecationWarning, so there the int-list branch is not taken (pyproject allows numpy>=1.24)
_ASSIGN_REFUSES_OVERFLOW = int(np.__version__.split(".")[0]) >= 2
_INT_LIST_DTYPES = (torch.int64, torch.int32)


def _stage_int_list(
    data: list[Any] | tuple[Any, ...], dtype: torch.dtype, target: torch.device, small_max: int
) -> torch.Tensor | None:
    """A flat list or tuple of exact Python ints written straight into a small staging slice, then one non_blocking copy; None where the general route must decide.

    ``dtype`` is ``torch.int64`` (a list's own dtype) or ``torch.int32``. One numpy assignment converts the ints into
    the pinned slice (:meth:`_staging.StagingPool.small_array`): the values are exact or the assignment raises
    OverflowError (numpy 2), and then this returns None and the general route gives its own error (an int outside
    int32 into int32, or outside int64). The route it skips, ``_flat_list`` (an int64
    array, then a tensor of it), ``check_representable`` and a ``copy_`` into the slice, cost 3.4 us of host
    staging for one int and 3.7 for 16 on the CPU machine, this one 2.1 and 2.4 (``bench/host_prep_timings.py``;
    docs/performance.md); tests/reference/test_fast_paths.py checks both give the same dtype, shape and bytes, and
    the same errors. None too for an empty list, other element types (bool, float,
    an int subclass), more than ``small_max`` bytes, or numpy 1.
    """
    count = len(data)
    # a list whose first element is no int (floats, bools) is declined here, without the pool's lock and lookup;
    # every element's type is tested under the lock below
    if not count or count * dtype.itemsize > small_max or not _ASSIGN_REFUSES_OVERFLOW or type(data[0]) is not int:
        return None
    pool = _staging.pool_for(target, _staging.SMALL_CHUNK_BYTES, pin_memory_available(), small=True)
    with pool.lock:  # held until the copy reading the slice is queued (the chunk's event then covers it)
        # the element types tested under the lock, right before the values are read: a wait for the lock between
        # the two would widen the window in which a caller's other thread could change the list (outside review)
        kinds = set(map(type, data))
        if len(kinds) != 1 or int not in kinds:
            return None
        view = pool.small_array(count, dtype)
        try:
            view[:] = data
        except (OverflowError, TypeError, ValueError):
            # out of range (numpy 2), or the list changed under us (a caller's race): the slice, written in part
            # and read by no copy, goes back to the pool, and the general route decides on the list as it is now
            pool.unreserve_last(count, dtype)
            return None
        try:
            return _dma(torch.from_numpy(view), target, None)
        finally:  # also when the copy raised after it was queued (outside review)
            opened = pool.open  # cudaStreamPerThread: the done only this thread can record (StagingPool.copied)
            if opened is not None and opened.owner is not None:
                pool.copied()


def _dma(staging: torch.Tensor, target: torch.device, out: torch.Tensor | None) -> torch.Tensor:
    """The one non_blocking copy of pooled ``staging`` into ``out``, or into a new tensor on ``target``.

    ``copy=True``: for a host target (the CPU call-trace tests) ``.to()`` would return the
    pooled staging itself, which the next call overwrites (outside review of the pool).
    """
    return (
        out.copy_(staging, non_blocking=True) if out is not None else staging.to(target, non_blocking=True, copy=True)
    )


def _copy_pooled(
    source: torch.Tensor,
    dtype: torch.dtype,
    target: torch.device,
    out: torch.Tensor | None,
    min_block: int,
    *,
    pin: bool,
) -> torch.Tensor:
    """Stage ``source`` whole in one block of its size class's pool (one host copy), then one non_blocking copy.

    One host copy per call, not one per 4 MiB piece: torch runs each host ``copy_`` as an
    OpenMP parallel region, and with a second process busy on the same cores each region
    cost about 8 ms. Staged in 4 MiB pieces (pipelined), as an earlier version did, a 64 MiB call spent 84-126 ms in
    16 host copies behind a busy stream, two pytest workers sharing the H200's 16 cores
    (measured with ``H2D_STAGING_TRACE``, see docs/performance.md). The overlap of host copy and DMA
    comes from consecutive calls instead (each pool keeps its depth in flight before it waits for its own copy: two
    blocks, three of 1-2 MiB, 48 MiB of 4-16 MiB blocks, ``_staging.AHEAD_BYTES``).
    """
    traced = bool(_staging.TRACE_PATH)
    if traced:
        t0 = time.perf_counter()
    nbytes = source.numel() * dtype.itemsize
    block_bytes = max(min_block, 1 << (nbytes - 1).bit_length())
    pool = _staging.pool_for(target, block_bytes, pin, small=False)
    with pool.lock:  # held until the copy reading the block is queued (its event then covers it)
        block = pool.take(nbytes)
        try:
            if traced:
                t1 = time.perf_counter()
            staging = block.tensor(source.shape, dtype)
            _host_copy(staging, source)  # parallel at the defaults (payloads > SMALL_MAX_BYTES = SERIAL_COPY_MAX_BYTES)
            if traced:
                t2 = time.perf_counter()
            pool.mark_start(block)  # right before the DMA: nothing but our copy between start and done
            result = _dma(staging, target, out)
        finally:
            pool.give_back(block)  # also when a copy raised: the block stays the pool's (outside review)
    if traced and (time.perf_counter() - t0) > 5e-3:
        _staging.trace(
            f"copy_pooled {(time.perf_counter() - t0) * 1e3:.2f} ms {nbytes} B: take={(t1 - t0) * 1e3:.2f} host={(t2 - t1) * 1e3:.2f} {pool.stats()}"
        )
    return result


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
          into pinned chunks of the per-device staging pool (converted to the target
          dtype on the host) and copied with ``non_blocking=True`` on the target device's
          current stream. The source may be overwritten as soon as the call returns (the
          copy reads the staging, a snapshot). Payloads up to 256 KiB take a slice of a
          shared 1 MiB chunk; larger ones a whole block of their power-of-two size class.
          A chunk or block is reused only after a CUDA event says its copies ran; the host
          waits only for its own copies already running on the DMA engine, or when a size
          class already holds its cap (1 GiB or two blocks, ``H2D_STAGING_MAX_BYTES``)
          queued behind other work. See :mod:`h2d_impl._staging`.
        - A CPU tensor that is already pinned, of the target dtype and without conj/neg
          bits is *not* copied again: the DMA reads it directly. Dense ones (contiguous,
          or a permutation: ``.t()``, channels-last) are DMA'd with their strides and made
          contiguous on the device; a view with gaps (e.g. a column slice) whose byte span
          is at most 4x its payload is DMA'd as that span and gathered on the device;
          sparser views are staged (one host pass). Hazard, as in vLLM: do not write to a
          pinned input until the copy has completed; wait with
          ``torch.cuda.current_stream(device).synchronize()`` or an event recorded right
          after the call.
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
    # _async_h2d's two steps inlined, with its default knobs: one Python frame less on every decode step's call
    if out is None and _staging.MIN_BLOCK_BYTES == _MIN_BLOCK_DEFAULT:
        moved = _fast_path(data, device, dtype, _SMALL_MAX_DEFAULT)
        if moved is not None:
            return moved
    return _general_h2d(data, device, dtype, out)


def async_tensor_h2d_pipelined(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """Deprecated alias of :func:`async_tensor_h2d`, kept so that callers of the old opt-in keep working.

    Formerly the chunked, pipelined staging of large payloads was opt-in here: it
    reached 87-94% of the pinned DMA limit but paid a ``cudaHostAlloc`` per chunk behind a
    busy stream. The default path now stages through the event-tracked chunk pool of
    :mod:`h2d_impl._staging`, which has both properties without the cost, so the two are one.
    """
    return _async_h2d(data, device, dtype, out)


def _fast_path(data: Any, device: Any, dtype: Any, small_max: int) -> torch.Tensor | None:
    """The engine's hot calls without the general path's layers, or None where the general path must decide.

    Taken only without ``out``, for ``device`` a spelling already resolved to a CUDA device with
    its index (:data:`_RESOLVED`) that is the current one, and ``dtype`` None or a supported torch
    dtype; anything else, bad input included, returns None before any work and takes the general
    path, which validates and raises as documented. Two calls:

    - a plain, pinned CPU tensor of the target dtype (not requiring grad, without conj/neg bits),
      contiguous or dense in a permutation (:func:`_dense`): the zero-copy DMA,
      ``data.to(target, non_blocking=True)``, made contiguous on the device for a permutation, as
      :func:`_to_device`'s zero-copy branch (a permuted 16 MiB tensor spent about 12 us of 100 in
      ``_prepare`` and a second ``is_pinned()`` behind a busy stream on the H200,
      ``dev/busy_path_probe.py``; docs/performance.md);
    - a flat list or tuple (:func:`_host._flat_list`), a plain ``numpy.ndarray`` or a plain
      pageable CPU tensor: the same source (:func:`_host._flat_list`,
      :func:`_host._numpy_to_tensor`), the same :func:`check_representable`, and the same
      staging as :func:`_to_device`: its small branch (:func:`_stage_small`) for at most
      ``small_max`` bytes in the target dtype, one pooled block (:func:`_copy_pooled`) above.
      The pooled branch skips ``_prepare`` and the second ``is_pinned()`` of the zero-copy
      test: about 10 us of a 1 MiB call's 104 us behind a busy stream on the H200
      (``dev/busy_path_probe.py``; docs/performance.md).

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
    # a resolved device has an index exactly when it is a CUDA device (the host is "cpu", index None:
    # _resolve_uncached); ``.index`` costs about 40 ns where ``.type``, a new string, cost 235 (the CPU machine)
    if target is None:
        return None
    index = target.index
    if (
        index is None
        or (dtype is not None and (type(dtype) is not torch.dtype or dtype not in SUPPORTED_DTYPES))
        or (_cuda_device_count() > 1 and index != torch.cuda.current_device())
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
            or data._is_zerotensor()
        ):
            return None
        if dtype is None or dtype is data.dtype:
            if data.is_pinned():
                # contiguous, or dense in a permutation (.t(), channels-last): as _to_device's zero-copy branch,
                # DMA'd as it lies and a permutation made contiguous on the device; a view with gaps takes the
                # general path
                contiguous = data.is_contiguous()
                if not contiguous and not _dense_permuted(data):
                    return None
                moved: torch.Tensor = data.to(target, non_blocking=True)
                return moved if contiguous else moved.contiguous()
            dtype = data.dtype
        source = data
    elif kind is list or kind is tuple:
        if dtype is None or dtype in _INT_LIST_DTYPES:
            written = _stage_int_list(data, dtype or torch.int64, target, small_max)
            if written is not None:
                return written
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
    if dtype is not source.dtype:  # into its own dtype every value is representable (the check returns at once)
        check_representable(source, dtype)
    if nbytes > small_max:
        return _copy_pooled(source, dtype, target, None, _staging.MIN_BLOCK_BYTES, pin=pin_memory_available())
    return _stage_small(source, dtype, target, None, nbytes, pin_memory_available(), plain=True)


def _async_h2d(
    data: Any,
    device: Any,
    dtype: Any,
    out: torch.Tensor | None,
    *,
    min_block: int = _MIN_BLOCK_DEFAULT,
    small_max: int = _SMALL_MAX_DEFAULT,
) -> torch.Tensor:
    """:func:`async_tensor_h2d` with the staging knobs (smallest block, small-payload threshold) for tests that drive
    the pooled-block path with small inputs (``small_max=0``)."""
    # the staging knobs of the tests (a smaller block) are the general path's: the fast path stages with the defaults
    if out is None and min_block == _staging.MIN_BLOCK_BYTES:
        moved = _fast_path(data, device, dtype, small_max)
        if moved is not None:
            return moved
    return _general_h2d(data, device, dtype, out, min_block=min_block, small_max=small_max)


def _general_h2d(
    data: Any,
    device: Any,
    dtype: Any,
    out: torch.Tensor | None,
    *,
    min_block: int = _MIN_BLOCK_DEFAULT,
    small_max: int = _SMALL_MAX_DEFAULT,
) -> torch.Tensor:
    """The general path of :func:`_async_h2d`, for what :func:`_fast_path` left: validation (:func:`_prepare`), then
    the host copy or :func:`_to_device` with the target device current."""
    source, dtype, target = _prepare(data, device, dtype, out, cpu_only=False)
    if target.type == "cpu":
        if out is not None:
            return out.copy_(source)  # the caller's tensor: torch's copy_ (autograd's version counter, subclasses)
        return _stage(source, dtype, pin=False)
    count = _cuda_device_count()
    # One visible device: the target (validated against the count) is the current one; the
    # current_device() call was about 1 us of a small call (cProfile of the bench, see docs/performance.md).
    if count <= 1 or target.index == torch.cuda.current_device():
        return _to_device(
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max
        )
    # Another device than the current one: pinned staging blocks (and the first-use
    # pinned-memory probe) are allocated through the CUDA context of the current device,
    # so make the target current for the call; torch switches back without creating a
    # context on the previous device (c10::cuda::MaybeSetDevice). Without this a call
    # aimed at cuda:1 created a context on cuda:0 (seen on 2x H200; the device-hygiene contract checks it).
    with torch.cuda.device(target):
        return _to_device(
            data, source, dtype, target, out, pin=pin_memory_available(), min_block=min_block, small_max=small_max
        )


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
