"""Deliberately broken implementations ("mutants"), each one realistic bug.

Every mutant is the reference (``h2d_impl``) with exactly one thing changed, the way
serving engines have shipped it. ``MUTANTS`` maps a name to a :class:`Mutant`: the
target factory, the catalogue contracts expected to reject it, and whether it needs
CUDA (or two devices) to show. ``tests/test_mutants.py`` runs those contracts against
each mutant and fails if any survives.

Use one as a target: ``pytest --h2d-impl h2d_contracts.h2d_mutants:broadcast_into_out`` (every
name below is also a module-level factory).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _host as H
from h2d_contracts.h2d_impl import h2d as R

__all__ = ["MUTANTS", "Mutant"]


@dataclass(frozen=True)
class Mutant:
    """A broken target: ``factory()`` builds it; ``killed_by`` are the contracts that must reject it."""

    name: str
    factory: Callable[[], Target]
    killed_by: tuple[str, ...]
    needs: str = "cpu"  # "cpu", "cuda", "2gpu", or "no-pinning" (a host without pinned memory: the bug only exists there)

    @property
    def doc(self) -> str:
        return (self.factory.__doc__ or "").strip().splitlines()[0]


def _target(name: str, fn: Callable[..., torch.Tensor] | None = None, *, buffer_cls: type | None = None, cpu_variant: Callable | None = None) -> Target:
    return Target(
        name=f"mutant:{name}",
        async_tensor_h2d=fn or h2d_impl.async_tensor_h2d,
        buffer_cls=buffer_cls or h2d_impl.CpuGpuBuffer,
        cpu_variant=cpu_variant or h2d_impl.async_tensor_h2d_cpu,
        capabilities=frozenset({"out", "buffer", "cpu-variant", "cuda"}),
        pin_memory_available=h2d_impl.pin_memory_available,
        version="mutant",
        spec=f"h2d_contracts.h2d_mutants:{name}",  # what a fresh process loads (the device-hygiene contract)
        empty_cache=h2d_impl.empty_staging_cache,
    )


# --------------------------------------------------------------------------- CPU mutants


def broadcast_into_out() -> Target:
    """out accepts a broadcastable shape: `out.copy_(src)` broadcasts [1] into a (4,) buffer (vLLM model, no shape check)."""

    def fn(data, device=None, dtype=None, out=None):
        try:
            return R.async_tensor_h2d(data, device, dtype, out)
        except ValueError as exc:
            if out is None or "out.shape" not in str(exc):
                raise
            source, _ = H.as_source_tensor(data)
            return out.copy_(source.to(out.dtype))

    return _target("broadcast_into_out", fn)


def dtype_mismatch_converted() -> Target:
    """dtype disagreeing with out.dtype is silently converted to out.dtype instead of rejected."""

    def fn(data, device=None, dtype=None, out=None):
        if out is not None and dtype is not None and dtype != out.dtype:
            dtype = None
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("dtype_mismatch_converted", fn)


def dtype_not_from_out() -> Target:
    """dtype not taken from out: data built in its own dtype, then copied into out, so [2**40] wraps in an int32 out."""

    def fn(data, device=None, dtype=None, out=None):
        if out is None or dtype is not None:
            return R.async_tensor_h2d(data, device, dtype, out)
        built = R.async_tensor_h2d(data, device=out.device)
        if tuple(built.shape) != tuple(out.shape):
            raise ValueError(f"out.shape={tuple(out.shape)} but data has shape {tuple(built.shape)}")
        return out.copy_(built)

    return _target("dtype_not_from_out", fn)


def partial_write_before_error() -> Target:
    """writes into out before validating values: a failing call (NaN into int) leaves out half-written."""

    def fn(data, device=None, dtype=None, out=None):
        if out is not None and not isinstance(data, (str, bytes)):
            try:
                source, _ = H.as_source_tensor(data)
            except (TypeError, ValueError):
                source = None
            if source is not None and tuple(source.shape) == tuple(out.shape) and not source.is_complex():
                out.copy_(source.to(out.dtype))
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("partial_write_before_error", fn)


def cpu_result_aliases_input() -> Target:
    """the CPU path returns a view of its input (torch.from_numpy / the tensor itself) when no conversion is needed."""

    def fn(data, device=None, dtype=None, out=None):
        if out is None and device is not None and torch.device(device).type == "cpu":
            source, own = H.as_source_tensor(data)
            if (dtype or own) == source.dtype:
                return source
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("cpu_result_aliases_input", fn)


def validation_by_assert() -> Target:
    """checks live in `assert` (as in vLLM): AssertionError instead of TypeError, and under python -O no check at all."""

    def fn(data, device=None, dtype=None, out=None):
        assert device is not None or out is not None, "device or out is required"
        if out is not None:
            assert dtype is None or dtype == out.dtype, "dtype must match out.dtype"
            return R.async_tensor_h2d(data, dtype=out.dtype, out=out)
        return R.async_tensor_h2d(data, device if device is not None else "cpu", dtype)

    return _target("validation_by_assert", fn)


def nan_into_int_unchecked() -> Target:
    """float -> integer conversion without the NaN/inf/range check: NaN becomes INT_MIN (garbage) silently."""

    def fn(data, device=None, dtype=None, out=None):
        try:
            return R.async_tensor_h2d(data, device, dtype, out)
        except ValueError as exc:
            if "cannot be converted to integer" not in str(exc) and "out of range" not in str(exc):
                raise
            source, own = H.as_source_tensor(data)  # the bug: convert with Tensor.to, no value check
            resolved = dtype or (out.dtype if out is not None else own)
            staged = source.to(resolved)
            return out.copy_(staged) if out is not None else staged.to(device)

    return _target("nan_into_int_unchecked", fn)


def empty_input_default_dtype() -> Target:
    """zero-length input short-circuits to torch.empty(0) with the default dtype, ignoring dtype/out and the data's shape."""

    def fn(data, device=None, dtype=None, out=None):
        if np.size(data) == 0 if not isinstance(data, torch.Tensor) else data.numel() == 0:
            target = out.device if out is not None else device
            return torch.empty(0, device=target)
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("empty_input_default_dtype", fn)


def cpu_variant_numpy_inference() -> Target:
    """the CPU-platform variant infers list dtypes like numpy (float64, not torch's float32): the two paths disagree."""

    def cpu(data, device=None, dtype=None, out=None):
        if isinstance(data, list) and dtype is None and out is None:
            arr = np.asarray(data)
            if arr.dtype.kind == "f":
                return R.async_tensor_h2d_cpu(arr, device, dtype, out)
        return R.async_tensor_h2d_cpu(data, device, dtype, out)

    return _target("cpu_variant_numpy_inference", cpu_variant=cpu)


class _Buffer(h2d_impl.CpuGpuBuffer):
    """Base for buffer mutants: the reference with copy methods overridden."""


def copy_to_gpu_no_bounds_check() -> Target:
    """copy_to_gpu/copy_to_cpu slice without a bounds check (vLLM): n=136 on capacity 132 is clamped, n=-1 drops a row."""

    class B(_Buffer):
        def copy_to_gpu(self, n=None):
            if n is None:
                return self.gpu.copy_(self.cpu, non_blocking=True)
            return self.gpu[:n].copy_(self.cpu[:n], non_blocking=True)

        def copy_to_cpu(self, n=None):
            if n is None:
                return self.cpu.copy_(self.gpu, non_blocking=True)
            return self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)

    return _target("copy_to_gpu_no_bounds_check", buffer_cls=B)


def copy_to_gpu_off_by_one() -> Target:
    """copy_to_gpu(n) copies n + 1 rows (the `num_reqs + 1` confusion), clobbering row n of .gpu."""

    class B(_Buffer):
        def copy_to_gpu(self, n=None):
            if n is None:
                return super().copy_to_gpu(None)
            self._rows(n)
            self.gpu[: n + 1].copy_(self.cpu[: n + 1], non_blocking=True)
            return self.gpu[:n]

    return _target("copy_to_gpu_off_by_one", buffer_cls=B)


def negative_n_accepted() -> Target:
    """the bounds check tests only the upper end: copy_to_gpu(-2) silently copies all rows but the last two."""

    class B(_Buffer):
        def _rows(self, n):
            if n is None:
                return None
            if isinstance(n, bool):
                raise TypeError(f"n must be an int, got {n!r}")
            n = operator.index(n)
            if n > self.capacity:
                raise IndexError(f"n={n} > capacity {self.capacity}")
            return n

    return _target("negative_n_accepted", buffer_cls=B)


def n_beyond_capacity_clamped() -> Target:
    """n beyond capacity is clamped with min(n, capacity) instead of rejected (capacity 132, asked 136: 4 rows lost)."""

    class B(_Buffer):
        def _rows(self, n):
            if n is None:
                return None
            if isinstance(n, bool):
                raise TypeError(f"n must be an int, got {n!r}")
            n = operator.index(n)
            if n < 0:
                raise IndexError(f"n={n} is negative")
            return min(n, self.capacity)

    return _target("n_beyond_capacity_clamped", buffer_cls=B)


def copy_to_cpu_wrong_rows() -> Target:
    """copy_to_cpu(n) reads the last n rows of .gpu instead of the first n."""

    class B(_Buffer):
        def copy_to_cpu(self, n=None):
            n = self._rows(n)
            if n is None:
                return super().copy_to_cpu(None)
            start = self.capacity - n
            return self.cpu[:n].copy_(self.gpu[start:], non_blocking=True)

    return _target("copy_to_cpu_wrong_rows", buffer_cls=B)


def copy_to_cpu_synchronizing() -> Target:
    """copy_to_cpu(n) without non_blocking (a plain ``.copy_``): the host waits for all queued device work at every step."""

    class B(_Buffer):
        def copy_to_cpu(self, n=None):
            n = self._rows(n)
            if n is None:
                return self.cpu.copy_(self.gpu)
            return self.cpu[:n].copy_(self.gpu[:n])

    return _target("copy_to_cpu_synchronizing", buffer_cls=B)


def numpy_view_is_a_copy() -> Target:
    """.np is a copy of .cpu (`.numpy().copy()`), so writes through .np never reach the device."""

    class B(_Buffer):
        def __init__(self, *size, **kw):
            super().__init__(*size, **kw)
            if self._np is not None:
                self._np = self._np.copy()

    return _target("numpy_view_is_a_copy", buffer_cls=B)


# --------------------------------------------------------------------------- GPU mutants


def pageable_tensor_not_staged() -> Target:
    """an unpinned tensor is copied straight from pageable memory: `data.to(device, non_blocking=True)` blocks the host."""

    def fn(data, device=None, dtype=None, out=None):
        if isinstance(data, torch.Tensor) and data.device.type == "cpu" and not data.is_pinned():
            source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
            if target.type == "cuda":
                return out.copy_(source, non_blocking=True) if out is not None else source.to(target, dtype_, non_blocking=True)
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("pageable_tensor_not_staged", fn)


def pageable_ndarray_not_staged() -> Target:
    """a numpy array goes through torch.from_numpy(...).to(device, non_blocking=True): a pageable DMA."""

    def fn(data, device=None, dtype=None, out=None):
        if isinstance(data, np.ndarray):
            source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
            if target.type == "cuda":
                return out.copy_(source, non_blocking=True) if out is not None else source.to(target, dtype_, non_blocking=True)
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("pageable_ndarray_not_staged", fn)


def strided_pinned_view_not_staged() -> Target:
    """any pinned tensor skips staging, even a column slice: torch then makes a pageable contiguous copy and blocks."""

    def fn(data, device=None, dtype=None, out=None):
        if isinstance(data, torch.Tensor) and data.device.type == "cpu" and data.is_pinned():
            source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
            if target.type == "cuda" and source.dtype == dtype_:
                return out.copy_(source, non_blocking=True) if out is not None else source.to(target, non_blocking=True)
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("strided_pinned_view_not_staged", fn)


def pinned_input_restaged() -> Target:
    """already pinned inputs are copied into a new pinned buffer again (wasted allocation and bandwidth)."""

    def fn(data, device=None, dtype=None, out=None):
        if isinstance(data, torch.Tensor) and data.device.type == "cpu" and data.is_pinned():
            data = data.clone().pin_memory() if data.numel() else data.clone()
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("pinned_input_restaged", fn)


_STAGING: dict[str, torch.Tensor] = {}


def reused_staging_buffer() -> Target:
    """one persistent pinned staging buffer, reused by the next call without waiting for the queued copy (a race)."""

    def fn(data, device=None, dtype=None, out=None):
        source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
        if target.type != "cuda":
            return R.async_tensor_h2d(data, device, dtype, out)
        nbytes = source.numel() * torch.empty(0, dtype=dtype_).element_size()
        buf = _STAGING.get("buf")
        if buf is None or buf.numel() < nbytes:
            buf = _STAGING["buf"] = torch.empty(max(nbytes, 1 << 20), dtype=torch.uint8, pin_memory=True)
        staging = buf[:nbytes].view(dtype_).view(source.shape) if nbytes else torch.empty(source.shape, dtype=dtype_)
        staging.copy_(source)
        return out.copy_(staging, non_blocking=True) if out is not None else staging.to(target, non_blocking=True)

    return _target("reused_staging_buffer", fn)


def copy_on_default_stream() -> Target:
    """the copy is enqueued on the default stream, not the caller's current stream (no ordering with its work)."""

    def fn(data, device=None, dtype=None, out=None):
        target = out.device if out is not None else torch.device(device) if not isinstance(device, int) else torch.device("cuda", device)
        if target.type == "cuda":
            with torch.cuda.stream(torch.cuda.default_stream(target)):
                return R.async_tensor_h2d(data, device, dtype, out)
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("copy_on_default_stream", fn)


def synchronizing_copy() -> Target:
    """the staged copy is followed by a stream synchronize ("to be safe"): every call waits for all queued work."""

    def fn(data, device=None, dtype=None, out=None):
        result = R.async_tensor_h2d(data, device, dtype, out)
        if result.device.type == "cuda":
            torch.cuda.current_stream(result.device).synchronize()
        return result

    return _target("synchronizing_copy", fn)


def device_index_ignored() -> Target:
    """the device index is dropped ("cuda:1" -> "cuda"): data lands on the current device."""

    def fn(data, device=None, dtype=None, out=None):
        if device is not None and out is None:
            dev = torch.device("cuda", device) if isinstance(device, int) else torch.device(device)
            if dev.type == "cuda":
                device = "cuda"
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("device_index_ignored", fn)


_SCRATCH: dict[str, torch.Tensor] = {}


def shared_scratch_buffer() -> Target:
    """the host path reuses one module-level scratch tensor with no lock: concurrent callers read each other's data."""

    def fn(data, device=None, dtype=None, out=None):
        source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
        nbytes = source.numel() * dtype_.itemsize
        scratch = _SCRATCH.get("buf")
        if scratch is None or scratch.numel() < nbytes:
            scratch = _SCRATCH["buf"] = torch.empty(max(nbytes, 1 << 16), dtype=torch.uint8)
        staging = scratch[:nbytes].view(dtype_).view(source.shape)
        staging.copy_(source)
        result = staging.to(target, non_blocking=False, copy=True)
        return out.copy_(result) if out is not None else result

    return _target("shared_scratch_buffer", fn)


_KEPT: list[torch.Tensor] = []


def results_kept_alive() -> Target:
    """a debugging cache left in: every result is appended to a module-level list, so device memory grows per call."""

    def fn(data, device=None, dtype=None, out=None):
        result = R.async_tensor_h2d(data, device, dtype, out)
        _KEPT.append(result)
        return result

    return _target("results_kept_alive", fn)


_IN_FLIGHT: list[torch.Tensor] = []


def staging_blocks_never_released() -> Target:
    """the list that keeps each call's pinned staging block alive until its copy completes is never pruned: pinned host
    memory still referenced grows by one block per call (a fixed 4 KiB block here, as a staging ring's bookkeeping would hold)."""

    def fn(data, device=None, dtype=None, out=None):
        result = R.async_tensor_h2d(data, device, dtype, out)
        if result.device.type == "cuda":
            _IN_FLIGHT.append(torch.empty(4096, dtype=torch.uint8, pin_memory=True))
        return result

    return _target("staging_blocks_never_released", fn)


def completion_event_on_current_device() -> Target:
    """a completion event is recorded on ``torch.cuda.current_stream()`` (the current device's, not the target's): a call aimed
    at cuda:1 creates a CUDA context on cuda:0, so every worker process of a multi-GPU server holds memory on GPU 0."""

    def fn(data, device=None, dtype=None, out=None):
        result = R.async_tensor_h2d(data, device, dtype, out)
        if result.device.type == "cuda":
            torch.cuda.current_stream().record_event()
        return result

    return _target("completion_event_on_current_device", fn)


MUTANTS: dict[str, Mutant] = {
    m.name: m
    for m in [
        Mutant("broadcast_into_out", broadcast_into_out, ("out",)),
        Mutant("dtype_mismatch_converted", dtype_mismatch_converted, ("dtype",)),
        Mutant("dtype_not_from_out", dtype_not_from_out, ("bad-input",)),
        Mutant("partial_write_before_error", partial_write_before_error, ("bad-input",)),
        Mutant("cpu_result_aliases_input", cpu_result_aliases_input, ("no-alias",)),
        Mutant("validation_by_assert", validation_by_assert, ("target",)),
        Mutant("nan_into_int_unchecked", nan_into_int_unchecked, ("bad-input",)),
        Mutant("empty_input_default_dtype", empty_input_default_dtype, ("values",)),
        Mutant("cpu_variant_numpy_inference", cpu_variant_numpy_inference, ("cpu-path",)),
        Mutant("copy_to_gpu_no_bounds_check", copy_to_gpu_no_bounds_check, ("buffer",)),
        Mutant("copy_to_gpu_off_by_one", copy_to_gpu_off_by_one, ("buffer",)),
        Mutant("negative_n_accepted", negative_n_accepted, ("buffer",)),
        Mutant("n_beyond_capacity_clamped", n_beyond_capacity_clamped, ("buffer",)),
        Mutant("copy_to_cpu_wrong_rows", copy_to_cpu_wrong_rows, ("buffer",)),
        Mutant("numpy_view_is_a_copy", numpy_view_is_a_copy, ("buffer",)),
        Mutant("pageable_tensor_not_staged", pageable_tensor_not_staged, ("staging", "non-blocking"), "cuda"),
        Mutant("pageable_ndarray_not_staged", pageable_ndarray_not_staged, ("staging", "non-blocking"), "cuda"),
        Mutant("strided_pinned_view_not_staged", strided_pinned_view_not_staged, ("staging", "non-blocking"), "cuda"),
        Mutant("pinned_input_restaged", pinned_input_restaged, ("staging",), "cuda"),
        Mutant("reused_staging_buffer", reused_staging_buffer, ("snapshot",), "cuda"),
        Mutant("copy_on_default_stream", copy_on_default_stream, ("stream",), "cuda"),
        Mutant("synchronizing_copy", synchronizing_copy, ("non-blocking",), "cuda"),
        Mutant("copy_to_cpu_synchronizing", copy_to_cpu_synchronizing, ("non-blocking",), "cuda"),
        Mutant("device_index_ignored", device_index_ignored, ("stream",), "2gpu"),
        Mutant("shared_scratch_buffer", shared_scratch_buffer, ("concurrency",)),
        Mutant("results_kept_alive", results_kept_alive, ("hygiene",), "cuda"),
        Mutant("staging_blocks_never_released", staging_blocks_never_released, ("hygiene",), "cuda"),
        Mutant("completion_event_on_current_device", completion_event_on_current_device, ("device-hygiene",), "2gpu"),
    ]
}


# --------------------------------------------------------------------------- added for issue 9 (input-untouched, entry points)


def byteswap_in_place() -> Target:
    """a non-native byte order (``>i4``) is fixed in place on the caller's array (``byteswap(inplace=True)``): the caller's values turn to garbage."""

    def fn(data, device=None, dtype=None, out=None):
        if isinstance(data, np.ndarray) and not data.dtype.isnative and data.flags.writeable and data.dtype.itemsize > 1:
            data = data.byteswap(inplace=True).view(data.dtype.newbyteorder("="))
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("byteswap_in_place", fn)


def int_list_padded_in_place() -> Target:
    """a 1-D int list is padded to a multiple of 8 in place (``data += [0] * pad``) "for alignment": the caller's list grows."""

    def fn(data, device=None, dtype=None, out=None):
        if type(data) is list and data and all(type(v) is int for v in data) and len(data) % 8 and out is None:
            n = len(data)
            data += [0] * (-n % 8)
            return R.async_tensor_h2d(data, device, dtype)[:n]
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("int_list_padded_in_place", fn)



def cpu_variant_returns_caller_memory() -> Target:
    """the CPU-platform variant returns ``torch.as_tensor(data)`` when no conversion is needed: the caller's own memory, not a copy."""

    def cpu(data, device=None, dtype=None, out=None):
        if out is None and isinstance(data, (np.ndarray, torch.Tensor)):
            shared = torch.as_tensor(data) if not isinstance(data, np.ndarray) or data.dtype.isnative else None
            if shared is not None and (dtype is None or dtype == shared.dtype) and device is not None:
                R.async_tensor_h2d_cpu(data, device, dtype)  # validation, result dropped
                return shared
        return R.async_tensor_h2d_cpu(data, device, dtype, out)

    return _target("cpu_variant_returns_caller_memory", cpu_variant=cpu)


def copy_to_cpu_returns_gpu_view() -> Target:
    """copy_to_cpu(n) copies the right rows but returns ``.gpu[:n]`` (the source) instead of ``.cpu[:n]``."""

    class B(_Buffer):
        def copy_to_cpu(self, n=None):
            super().copy_to_cpu(n)
            return self.gpu if n is None else self.gpu[: self._rows(n)]

    return _target("copy_to_cpu_returns_gpu_view", buffer_cls=B)



def tensor_into_out_unchecked() -> Target:
    """a tensor written into ``out`` skips the range/NaN check (``out.copy_(data)``): ``torch.tensor([2**40])`` into an int32 out wraps to 0."""

    def fn(data, device=None, dtype=None, out=None):
        if isinstance(data, torch.Tensor) and out is not None and (dtype is None or dtype == out.dtype):
            try:
                return R.async_tensor_h2d(data, device, dtype, out)
            except ValueError as exc:
                if "out of range" not in str(exc) and "cannot be converted" not in str(exc):
                    raise
                return out.copy_(data)
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("tensor_into_out_unchecked", fn)


def buffer_pin_without_fallback() -> Target:
    """CpuGpuBuffer passes ``pin_memory=True`` straight to torch: on a host without pinned memory the constructor raises RuntimeError."""

    class B(_Buffer):
        def __init__(self, *size, dtype, device, pin_memory=None, with_numpy=True):
            if pin_memory:
                torch.zeros(1, pin_memory=True)  # the unguarded allocation (raises where pinning is unavailable)
            super().__init__(*size, dtype=dtype, device=device, pin_memory=pin_memory, with_numpy=with_numpy)

    return _target("buffer_pin_without_fallback", buffer_cls=B)


def buffer_asserts_its_arguments() -> Target:
    """CpuGpuBuffer validates its size with ``assert`` (vLLM's style): AssertionError, and under ``python -O`` a negative size reaches torch."""

    class B(_Buffer):
        def __init__(self, *size, dtype, device, pin_memory=None, with_numpy=True):
            assert size and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in size), size
            super().__init__(*size, dtype=dtype, device=device, pin_memory=pin_memory, with_numpy=with_numpy)

    return _target("buffer_asserts_its_arguments", buffer_cls=B)


def buffer_refusals_name_nothing() -> Target:
    """CpuGpuBuffer and its copies refuse bad arguments with the right exception types but bare messages ("invalid argument")."""

    def bare(fn):
        def wrapped(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except (TypeError, ValueError, IndexError) as exc:
                raise type(exc)("invalid argument") from None

        return wrapped

    class B(_Buffer):
        __init__ = bare(h2d_impl.CpuGpuBuffer.__init__)
        copy_to_gpu = bare(h2d_impl.CpuGpuBuffer.copy_to_gpu)
        copy_to_cpu = bare(h2d_impl.CpuGpuBuffer.copy_to_cpu)

    return _target("buffer_refusals_name_nothing", buffer_cls=B)


MUTANTS.update(
    (m.name, m)
    for m in [
        Mutant("buffer_asserts_its_arguments", buffer_asserts_its_arguments, ("buffer",)),
        Mutant("buffer_refusals_name_nothing", buffer_refusals_name_nothing, ("buffer",)),
        Mutant("byteswap_in_place", byteswap_in_place, ("input-untouched",)),
        Mutant("int_list_padded_in_place", int_list_padded_in_place, ("input-untouched",)),
        Mutant("cpu_variant_returns_caller_memory", cpu_variant_returns_caller_memory, ("no-alias",)),
        Mutant("copy_to_cpu_returns_gpu_view", copy_to_cpu_returns_gpu_view, ("buffer",)),
        Mutant("tensor_into_out_unchecked", tensor_into_out_unchecked, ("bad-input",)),
        Mutant("buffer_pin_without_fallback", buffer_pin_without_fallback, ("buffer",), "no-pinning"),
    ]
)


# --------------------------------------------------------------------------- held-out round 1 misses (issue 9, item 4b)
# The four bugs of reports/power/ round 1 that the kit of 9e409f4 missed at one seed or
# more, rewritten as behaviour-preserving wrappers of the reference (the round's own
# versions patch h2d_impl's source: reports/power/README.md).


def _untyped_leaves(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, (list, tuple)):
        return type(obj)(_untyped_leaves(v) for v in obj)
    return obj


def tuple_leaves_untyped() -> Target:
    """held-out r1 b02: the typed-leaf scan walks lists only, so numpy scalars inside a tuple lose their dtype
    (``(np.float64(0.1),)`` comes back float32, ``(np.int16(7),)`` int64)."""

    def fn(data, device=None, dtype=None, out=None):
        if isinstance(data, tuple):
            data = _untyped_leaves(data)
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("tuple_leaves_untyped", fn)


def numpy_scalar_as_item() -> Target:
    """held-out r1 b03: a bare numpy scalar goes through ``.item()``, a Python number: ``np.float16(1.5)`` comes back
    float32 and ``np.int32(5)`` int64 instead of keeping the scalar's own dtype."""

    def fn(data, device=None, dtype=None, out=None):
        return R.async_tensor_h2d(data.item() if isinstance(data, np.generic) else data, device, dtype, out)

    return _target("numpy_scalar_as_item", fn)


def int64_range_check_misses_2_63() -> Target:
    """held-out r1 b04: the float -> int64 range check compares with ``float(iinfo.max)``, which rounds to 2**63, so
    exactly 2.0**63 passes and wraps to INT64_MIN instead of raising ValueError."""

    def fn(data, device=None, dtype=None, out=None):
        target_dtype = dtype if dtype is not None else (out.dtype if out is not None else None)
        if target_dtype is torch.int64 and not isinstance(data, torch.Tensor):
            arr = np.asarray(data) if isinstance(data, (list, tuple, np.ndarray)) else None
            if arr is not None and arr.dtype.kind == "f" and arr.size and np.any(arr == 2.0**63) and np.all(np.isfinite(arr)):
                wrapped = torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float64)).to(torch.int64)
                return out.copy_(wrapped) if out is not None else wrapped.to(device)
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("int64_range_check_misses_2_63", fn)


def overlap_check_on_raw_data() -> Target:
    """held-out r1 b08: the out/data overlap check looks at ``data`` itself, which only understands tensors, so an
    ndarray view of out's own memory is not refused: the copy writes through it into the caller's array."""

    def fn(data, device=None, dtype=None, out=None):
        if isinstance(data, np.ndarray) and isinstance(out, torch.Tensor) and out.device.type == "cpu" and data.size and np.shares_memory(data, out.numpy()):
            return out.copy_(torch.from_numpy(data))
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("overlap_check_on_raw_data", fn)


MUTANTS.update(
    (m.name, m)
    for m in [
        Mutant("tuple_leaves_untyped", tuple_leaves_untyped, ("values",)),
        Mutant("numpy_scalar_as_item", numpy_scalar_as_item, ("values",)),
        Mutant("int64_range_check_misses_2_63", int64_range_check_misses_2_63, ("bad-input",)),
        Mutant("overlap_check_on_raw_data", overlap_check_on_raw_data, ("bad-input", "input-untouched")),
    ]
)


# --------------------------------------------------------------------------- held-out round 2 misses (issue 9, item 4b)


def cpu_variant_keeps_strides() -> Target:
    """held-out r2 b11: the CPU-platform variant ends with ``source.to(dtype=dtype, copy=True)``, which keeps a transposed
    input's strides: the result is not contiguous (``.view()`` on it fails)."""

    def cpu(data, device=None, dtype=None, out=None):
        result = R.async_tensor_h2d_cpu(data, device, dtype, out)
        if out is None and isinstance(data, torch.Tensor) and not data.is_contiguous():
            return data.detach().to(dtype=result.dtype, copy=True)
        return result

    return _target("cpu_variant_keeps_strides", cpu_variant=cpu)


def cpu_variant_float32_hardcoded() -> Target:
    """held-out r2 b13: the CPU-platform variant infers Python floats as ``torch.float32`` instead of torch's default dtype:
    under ``torch.set_default_dtype(torch.float64)``, ``[0.1]`` comes back float32."""

    def cpu(data, device=None, dtype=None, out=None):
        result = R.async_tensor_h2d_cpu(data, device, dtype, out)
        if dtype is None and out is None and isinstance(data, (list, tuple)) and result.dtype == torch.get_default_dtype() != torch.float32:
            return result.to(torch.float32)
        return result

    return _target("cpu_variant_float32_hardcoded", cpu_variant=cpu)


def cpu_variant_not_detached() -> Target:
    """held-out r2 b14: the CPU-platform variant takes a tensor without ``.detach()``: a result made from a tensor that
    requires grad stays in the caller's autograd graph."""

    def cpu(data, device=None, dtype=None, out=None):
        result = R.async_tensor_h2d_cpu(data, device, dtype, out)
        if isinstance(data, torch.Tensor) and data.requires_grad:
            return out.copy_(data) if out is not None else data.to(dtype=result.dtype, copy=True)
        return result

    return _target("cpu_variant_not_detached", cpu_variant=cpu)


MUTANTS.update(
    (m.name, m)
    for m in [
        Mutant("cpu_variant_keeps_strides", cpu_variant_keeps_strides, ("values",)),
        Mutant("cpu_variant_float32_hardcoded", cpu_variant_float32_hardcoded, ("values",)),
        Mutant("cpu_variant_not_detached", cpu_variant_not_detached, ("values",)),
    ]
)


# --------------------------------------------------------------------------- held-out round 3 miss (issue 9, item 4b)


def cpu_index_zero_rejected() -> Target:
    """held-out r3 b10: the device check refuses any explicit index on the host, so ``device="cpu:0"`` (and
    ``torch.device("cpu", 0)``), which torch accepts as the host, raises ValueError."""

    def fn(data, device=None, dtype=None, out=None):
        dev = torch.device(device) if isinstance(device, str) else device
        if isinstance(dev, torch.device) and dev.type == "cpu" and dev.index is not None:
            raise ValueError(f"device={device!r}: the host takes no index")
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("cpu_index_zero_rejected", fn)


MUTANTS["cpu_index_zero_rejected"] = Mutant("cpu_index_zero_rejected", cpu_index_zero_rejected, ("values",))


def refusals_name_no_argument() -> Target:
    """every refusal keeps its exception type but says only "invalid input": the caller cannot tell which argument is at
    fault (mutmut's survivors of the contract suite that replace a message by None, reports/mutation/)."""

    def fn(data, device=None, dtype=None, out=None):
        try:
            return R.async_tensor_h2d(data, device, dtype, out)
        except (ValueError, TypeError) as exc:
            raise type(exc)("invalid input") from None

    return _target("refusals_name_no_argument", fn)


MUTANTS["refusals_name_no_argument"] = Mutant("refusals_name_no_argument", refusals_name_no_argument, ("bad-input",))


def uint64_checked_through_int64() -> Target:
    """the integer range check widens every source through ``int64`` (``source.to(torch.int64)``), so a uint64 value of
    2**63 or more wraps negative and passes as an int64: ``np.array([2**63], np.uint64)`` into int64 becomes -2**63
    (the contract suite's mutation run of 73734f2: no drawn data reached it)."""

    def fn(data, device=None, dtype=None, out=None):
        target_dtype = dtype if dtype is not None else (out.dtype if out is not None else None)
        u64 = getattr(torch, "uint64", None)
        src = data if isinstance(data, torch.Tensor) and data.dtype == u64 else torch.from_numpy(data.astype(np.uint64).view(np.int64)) if isinstance(data, np.ndarray) and data.dtype == np.uint64 else None
        if target_dtype is torch.int64 and src is not None:
            wrapped = src.view(torch.int64) if src.dtype != torch.int64 else src
            return out.copy_(wrapped) if out is not None else wrapped.clone().to(device)
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("uint64_checked_through_int64", fn)


MUTANTS["uint64_checked_through_int64"] = Mutant("uint64_checked_through_int64", uint64_checked_through_int64, ("bad-input",))


# --------------------------------------------------------------------------- GPU mutation run of the device half (79c9cc9)
# mutmut's mutants of _to_device, _dense, _resolve_device and CpuGpuBuffer that survived the
# contracts on the H200 (reports/mutation/README.md), rewritten as wrappers of the reference.


def _parsed(device: Any) -> Any:
    """``device`` as a torch.device where torch can parse it, else as given (the reference then refuses it itself)."""
    try:
        return torch.device(device) if isinstance(device, str) else device
    except RuntimeError:
        return device


def zero_copy_ignores_out() -> Target:
    """a pinned dense tensor of out's dtype (the zero-copy path) is DMA'd into a new tensor; out is neither written
    nor returned (mutmut ``_to_device`` 11: ``if out is not None`` became ``... and False``)."""

    def fn(data, device=None, dtype=None, out=None):
        if out is not None and isinstance(data, torch.Tensor):
            source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
            if target.type == "cuda" and R._zero_copy_ok(data, source, dtype_):
                return source.to(target, non_blocking=True).contiguous()
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("zero_copy_ignores_out", fn)


def dense_rule_two_dims_only() -> Target:
    """the density rule holds for two dimensions only (``expected = size`` for ``expected *= size``): a pinned tensor
    dense in a permutation of three or more dimensions (sides >= 2) is staged again (mutmut ``_dense`` 13)."""

    def fn(data, device=None, dtype=None, out=None):
        if isinstance(data, torch.Tensor) and data.device.type == "cpu" and data.is_pinned() and not data.is_contiguous() and sum(s > 1 for s in data.shape) >= 3:
            source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
            if target.type == "cuda":
                staged = R._stage(source, dtype_, pin=True)
                return out.copy_(staged, non_blocking=True) if out is not None else staged.to(target, non_blocking=True)
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("dense_rule_two_dims_only", fn)


def permuted_pinned_blocking_copy() -> Target:
    """a pinned tensor dense in a permutation (``.t()``) is DMA'd as it lies with a blocking ``.to(device)``: the host
    waits for the stream (mutmut ``_to_device`` 28/29: ``non_blocking=True`` dropped)."""

    def fn(data, device=None, dtype=None, out=None):
        if isinstance(data, torch.Tensor) and data.device.type == "cpu" and data.is_pinned() and not data.is_contiguous():
            source, dtype_, target = R._prepare(data, device, dtype, out, cpu_only=False)
            if target.type == "cuda" and R._zero_copy_ok(data, source, dtype_):
                moved = source.to(target)
                return out.copy_(moved) if out is not None else moved.contiguous()
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("permuted_pinned_blocking_copy", fn)


def buffer_full_copy_blocking() -> Target:
    """``copy_to_gpu()`` / ``copy_to_cpu()`` without ``n`` copy every row with a blocking ``copy_`` (mutmut
    ``copy_to_gpu`` 8, ``copy_to_cpu`` 8: ``non_blocking=False``); with ``n`` they are the reference's."""

    class B(_Buffer):
        def copy_to_gpu(self, n=None):
            return self.gpu.copy_(self.cpu) if n is None else super().copy_to_gpu(n)

        def copy_to_cpu(self, n=None):
            return self.cpu.copy_(self.gpu) if n is None else super().copy_to_cpu(n)

    return _target("buffer_full_copy_blocking", buffer_cls=B)


def device_index_bound_off_by_one() -> Target:
    """``cuda:<device_count>`` passes the index check (``index <= count``) and fails later inside torch with its own
    RuntimeError, which names no argument (mutmut ``_resolve_device`` 35)."""

    def fn(data, device=None, dtype=None, out=None):
        dev = _parsed(device)
        count = torch.cuda.device_count()
        if count and isinstance(dev, torch.device) and dev.type == "cuda" and dev.index == count:
            raise RuntimeError("CUDA error: invalid device ordinal")
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("device_index_bound_off_by_one", fn)


def numpy_device_index_dropped() -> Target:
    """a numpy integer device index (``np.int64(0)``) is taken as no device (mutmut ``_resolve_device`` 6:
    ``device = int(device)`` became ``device = None``): without out the call raises TypeError."""

    def fn(data, device=None, dtype=None, out=None):
        return R.async_tensor_h2d(data, None if isinstance(device, np.integer) else device, dtype, out)

    return _target("numpy_device_index_dropped", fn)


def device_index_refusals_unnamed() -> Target:
    """a negative device index or a CPU index other than 0 is refused with a bare ValueError that names no argument
    (mutmut ``_resolve_device`` 11 and 20: the message became None)."""

    def fn(data, device=None, dtype=None, out=None):
        if isinstance(device, (int, np.integer)) and not isinstance(device, bool) and device < 0:
            raise ValueError()
        dev = _parsed(device)
        if isinstance(dev, torch.device) and dev.type == "cpu" and dev.index not in (None, 0):
            raise ValueError()
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("device_index_refusals_unnamed", fn)


MUTANTS.update(
    (m.name, m)
    for m in [
        Mutant("zero_copy_ignores_out", zero_copy_ignores_out, ("out",), "cuda"),
        Mutant("dense_rule_two_dims_only", dense_rule_two_dims_only, ("staging",), "cuda"),
        Mutant("permuted_pinned_blocking_copy", permuted_pinned_blocking_copy, ("non-blocking",), "cuda"),
        Mutant("buffer_full_copy_blocking", buffer_full_copy_blocking, ("non-blocking",), "cuda"),
        Mutant("device_index_bound_off_by_one", device_index_bound_off_by_one, ("bad-input",), "cuda"),
        Mutant("numpy_device_index_dropped", numpy_device_index_dropped, ("values",), "cuda"),
        Mutant("device_index_refusals_unnamed", device_index_refusals_unnamed, ("bad-input",)),
    ]
)


_FIRST_READ_ONLY = [True]


def warning_filter_without_category() -> Target:
    """a warning filter written ``simplefilter("ignore", None)`` around ``torch.from_numpy``: the first read-only
    ndarray of a process (torch warns once per process) makes the filter machinery raise TypeError, taken for an
    unsupported dtype; every later call is right (mutmut ``_numpy_to_tensor`` 38: killed at 0264e68, survived at
    2bda062, as the order of earlier tests decided)."""

    def fn(data, device=None, dtype=None, out=None):
        if isinstance(data, np.ndarray) and not data.flags.writeable and _FIRST_READ_ONLY[0]:
            _FIRST_READ_ONLY[0] = False
            raise TypeError(f"data has numpy dtype {data.dtype}, which torch cannot represent")
        return R.async_tensor_h2d(data, device, dtype, out)

    return _target("warning_filter_without_category", fn)


MUTANTS["warning_filter_without_category"] = Mutant("warning_filter_without_category", warning_filter_without_category, ("values",))


# --------------------------------------------------------------------------- the staging pool (issue 12)
# Bugs a pinned staging pool invites, each run in pools of its own (swapped in for the
# call), so the reference's own pools are never touched by a mutant.

from h2d_contracts.h2d_impl import _staging as _P  # noqa: E402


class _SliceNotAdvanced(_P.StagingPool):
    """The open chunk's offset is never advanced: every small call stages into the same bytes."""

    def small_tensor(self, shape, dtype, nbytes):
        off = self.open_off
        result = super().small_tensor(shape, dtype, nbytes)
        if result.numel() and self.open is not None and self.open_off > off:
            self.open_off = off
        return result


class _ChunkReusedBeforeDone(_P.StagingPool):
    """``take`` hands out the oldest queued block without asking its completion event."""

    def take(self, want: int = 0):
        if self.clock is not None and self._inflight:
            chunk = self._inflight.popleft()
            chunk.stream = self.clock.current_stream()
            chunk.marked = False
            return chunk
        return super().take(want)


def _with_pools(cls: type) -> Callable[..., torch.Tensor]:
    pools: dict = {}

    def fn(data, device=None, dtype=None, out=None):
        saved = dict(_P._POOLS)
        _P._POOLS.clear()
        _P._POOLS.update(pools)
        try:
            return R.async_tensor_h2d(data, device, dtype, out)
        finally:
            for key, pool in _P._POOLS.items():
                if type(pool) is _P.StagingPool:  # first use: made by pool_for, replace it by the mutant's class
                    pool.__class__ = cls
                pools[key] = pool
            _P._POOLS.clear()
            _P._POOLS.update(saved)

    return fn


def staging_slice_reused_while_queued() -> Target:
    """the small-payload pool never advances its offset in the open chunk: two calls queued behind a busy stream stage
    into the same pinned bytes, and the first copy reads the second call's values (wrong tokens)."""
    fn = _with_pools(_SliceNotAdvanced)
    return _target("staging_slice_reused_while_queued", fn)


def staging_chunk_reused_before_done() -> Target:
    """the large-payload pool reuses the oldest queued block without its completion event: a second large call
    overwrites the block whose DMA is still queued behind a busy stream (the first call's values are lost)."""
    fn = _with_pools(_ChunkReusedBeforeDone)
    return _target("staging_chunk_reused_before_done", fn)


MUTANTS.update(
    {
        m.name: m
        for m in [
            Mutant("staging_slice_reused_while_queued", staging_slice_reused_while_queued, ("snapshot",), "cuda"),
            Mutant("staging_chunk_reused_before_done", staging_chunk_reused_before_done, ("snapshot",), "cuda"),
        ]
    }
)
