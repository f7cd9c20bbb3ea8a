"""Mutants that break the bad-input contract: each the reference with one realistic bug."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import _host as H  # a mutant is the reference with one change: white-box
from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import mutant, parsed_device, reference_target


@mutant(killed_by=("bad-input",))
def dtype_not_from_out() -> Target:
    """dtype not taken from out: data built in its own dtype, then copied into out, so [2**40] wraps in an int32 out."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is None or dtype is not None:
            return R.async_tensor_h2d(data, device, dtype, out)
        built = R.async_tensor_h2d(data, device=out.device)
        if tuple(built.shape) != tuple(out.shape):
            raise ValueError(f"out.shape={tuple(out.shape)} but data has shape {tuple(built.shape)}")
        return out.copy_(built)

    return reference_target("dtype_not_from_out", fn)


@mutant(killed_by=("bad-input",))
def partial_write_before_error() -> Target:
    """writes into out before validating values: a failing call (NaN into int) leaves out half-written."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is not None and not isinstance(data, (str, bytes)):
            try:
                source, _ = H.as_source_tensor(data)
            except (TypeError, ValueError):
                source = None
            if source is not None and tuple(source.shape) == tuple(out.shape) and not source.is_complex():
                out.copy_(source.to(out.dtype))
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("partial_write_before_error", fn)


@mutant(killed_by=("bad-input",))
def nan_into_int_unchecked() -> Target:
    """float -> integer conversion without the NaN/inf/range check: NaN becomes INT_MIN (garbage) silently."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        try:
            return R.async_tensor_h2d(data, device, dtype, out)
        except ValueError as exc:
            if "cannot be converted to integer" not in str(exc) and "out of range" not in str(exc):
                raise
            source, own = H.as_source_tensor(data)  # the bug: convert with Tensor.to, no value check
            resolved = dtype or (out.dtype if out is not None else own)
            staged = source.to(resolved)
            return out.copy_(staged) if out is not None else staged.to(device)

    return reference_target("nan_into_int_unchecked", fn)


@mutant(killed_by=("bad-input",))
def tensor_into_out_unchecked() -> Target:
    """a tensor written into ``out`` skips the range/NaN check (``out.copy_(data)``): ``torch.tensor([2**40])`` into an int32 out wraps to 0."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, torch.Tensor) and out is not None and (dtype is None or dtype == out.dtype):
            try:
                return R.async_tensor_h2d(data, device, dtype, out)
            except ValueError as exc:
                if "out of range" not in str(exc) and "cannot be converted" not in str(exc):
                    raise
                return out.copy_(data)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("tensor_into_out_unchecked", fn)


@mutant(killed_by=("bad-input",))
def int64_range_check_misses_2_63() -> Target:
    """the float -> int64 range check compares with ``float(iinfo.max)``, which rounds to 2**63, so
    exactly 2.0**63 passes and wraps to INT64_MIN instead of raising ValueError."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        target_dtype = dtype if dtype is not None else (out.dtype if out is not None else None)
        if target_dtype is torch.int64 and not isinstance(data, torch.Tensor):
            arr = np.asarray(data) if isinstance(data, (list, tuple, np.ndarray)) else None
            if (
                arr is not None
                and arr.dtype.kind == "f"
                and arr.size
                and np.any(arr == 2.0**63)
                and np.all(np.isfinite(arr))
            ):
                wrapped = torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float64)).to(torch.int64)
                return out.copy_(wrapped) if out is not None else wrapped.to(device)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("int64_range_check_misses_2_63", fn)


@mutant(killed_by=("bad-input", "input-untouched"))
def overlap_check_on_raw_data() -> Target:
    """the out/data overlap check looks at ``data`` itself, which only understands tensors, so an
    ndarray view of out's own memory is not refused: the copy writes through it into the caller's array."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if (
            isinstance(data, np.ndarray)
            and isinstance(out, torch.Tensor)
            and out.device.type == "cpu"
            and data.size
            and np.shares_memory(data, out.numpy())
        ):
            return out.copy_(torch.from_numpy(data))
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("overlap_check_on_raw_data", fn)


@mutant(killed_by=("bad-input",))
def refusals_name_no_argument() -> Target:
    """every refusal keeps its exception type but says only "invalid input": the caller cannot tell which argument is at
    fault (as mutmut's mutants that replace a message by None do)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        try:
            return R.async_tensor_h2d(data, device, dtype, out)
        except (ValueError, TypeError) as exc:
            raise type(exc)("invalid input") from None

    return reference_target("refusals_name_no_argument", fn)


@mutant(killed_by=("bad-input",))
def uint64_checked_through_int64() -> Target:
    """the integer range check widens every source through ``int64`` (``source.to(torch.int64)``), so a uint64 value of
    2**63 or more wraps negative and passes as an int64: ``np.array([2**63], np.uint64)`` into int64 becomes -2**63
    (int64 holds every other integer dtype's values, so widening through it looks safe)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        target_dtype = dtype if dtype is not None else (out.dtype if out is not None else None)
        u64 = getattr(torch, "uint64", None)
        src = (
            data
            if isinstance(data, torch.Tensor) and data.dtype == u64
            else torch.from_numpy(data.astype(np.uint64).view(np.int64))
            if isinstance(data, np.ndarray) and data.dtype == np.uint64
            else None
        )
        if target_dtype is torch.int64 and src is not None:
            wrapped = src.view(torch.int64) if src.dtype != torch.int64 else src
            return out.copy_(wrapped) if out is not None else wrapped.clone().to(device)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("uint64_checked_through_int64", fn)


@mutant(killed_by=("bad-input",), needs="cuda")
def device_index_bound_off_by_one() -> Target:
    """``cuda:<device_count>`` passes the index check (``index <= count``) and fails later inside torch with its own
    RuntimeError, which names no argument (mutmut ``_resolve_device`` 35)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        dev = parsed_device(device)
        count = torch.cuda.device_count()
        if count and isinstance(dev, torch.device) and dev.type == "cuda" and dev.index == count:
            raise RuntimeError("CUDA error: invalid device ordinal")
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("device_index_bound_off_by_one", fn)


@mutant(killed_by=("bad-input",))
def device_index_refusals_unnamed() -> Target:
    """a negative device index or a CPU index other than 0 is refused with a bare ValueError that names no argument
    (mutmut ``_resolve_device`` 11 and 20: the message became None)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(device, (int, np.integer)) and not isinstance(device, bool) and device < 0:
            raise ValueError()
        dev = parsed_device(device)
        if isinstance(dev, torch.device) and dev.type == "cpu" and dev.index not in (None, 0):
            raise ValueError()
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("device_index_refusals_unnamed", fn)


_BY_TYPE: dict[str, Any] = {}


@mutant(killed_by=("bad-input",))
def device_cache_keyed_by_type() -> Target:
    """the resolved-device cache is keyed by the device's type ("the host has one device"): once ``"cpu:0"`` was
    resolved, ``"cpu:1"`` and ``torch.device("cpu", 1)`` are accepted as the host instead of refused."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(device, (str, torch.device)):
            try:
                key = torch.device(device).type
            except (RuntimeError, ValueError):
                key = None
            if key in _BY_TYPE:
                return R.async_tensor_h2d(data, _BY_TYPE[key], dtype, out)
            result = R.async_tensor_h2d(data, device, dtype, out)
            if key is not None:
                _BY_TYPE[key] = result.device
            return result
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("device_cache_keyed_by_type", fn)


_BY_VALUE: dict[Any, Any] = {}


@mutant(killed_by=("bad-input",), needs="cuda")
def device_cache_bool_equals_int() -> Target:
    """the resolved-device cache is keyed by the value alone: ``False == 0`` as a dict key, so once ``device=0`` was
    resolved, ``device=False`` is accepted as ``cuda:0`` instead of refused with TypeError (no int spelling of a device
    is valid on a host without CUDA, so only a GPU shows it)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(device, (int, np.integer)) and device in _BY_VALUE:
            return R.async_tensor_h2d(data, _BY_VALUE[device], dtype, out)
        result = R.async_tensor_h2d(data, device, dtype, out)
        if isinstance(device, (int, np.integer)) and not isinstance(device, bool):
            _BY_VALUE[device] = result.device
        return result

    return reference_target("device_cache_bool_equals_int", fn)
