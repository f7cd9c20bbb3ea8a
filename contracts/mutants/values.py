"""Mutants that break the values contract: each the reference with one realistic bug."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import mutant, reference_target, untyped_leaves

_FIRST_READ_ONLY = [True]


@mutant(killed_by=("values",))
def empty_input_default_dtype() -> Target:
    """zero-length input short-circuits to torch.empty(0) with the default dtype, ignoring dtype/out and the data's shape."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if np.size(data) == 0 if not isinstance(data, torch.Tensor) else data.numel() == 0:
            target = out.device if out is not None else device
            return torch.empty(0, device=target)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("empty_input_default_dtype", fn)


@mutant(killed_by=("values",), by=("prop_values_typed_leaves",))
def tuple_leaves_untyped() -> Target:
    """the typed-leaf scan walks lists only (tuples are sequences too), so numpy scalars inside a tuple lose their dtype
    (``(np.float64(0.1),)`` comes back float32, ``(np.int16(7),)`` int64)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, tuple):
            data = untyped_leaves(data)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("tuple_leaves_untyped", fn)


@mutant(killed_by=("values",), by=("prop_values_typed_leaves",))
def numpy_scalar_as_item() -> Target:
    """a bare numpy scalar is unwrapped with ``.item()`` into a Python number: ``np.float16(1.5)`` comes back
    float32 and ``np.int32(5)`` int64 instead of keeping the scalar's own dtype."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        return R.async_tensor_h2d(data.item() if isinstance(data, np.generic) else data, device, dtype, out)

    return reference_target("numpy_scalar_as_item", fn)


@mutant(killed_by=("values",), by=("prop_values_autograd_and_default_dtype",))
def cpu_variant_keeps_strides() -> Target:
    """the CPU-platform variant ends with the obvious ``source.to(dtype=dtype, copy=True)``, which keeps a transposed
    input's strides: the result is not contiguous (``.view()`` on it fails)."""

    def cpu(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        result = R.async_tensor_h2d_cpu(data, device, dtype, out)
        if out is None and isinstance(data, torch.Tensor) and not data.is_contiguous():
            return data.detach().to(dtype=result.dtype, copy=True)
        return result

    return reference_target("cpu_variant_keeps_strides", cpu_variant=cpu)


@mutant(killed_by=("values",), by=("prop_values_autograd_and_default_dtype",))
def cpu_variant_float32_hardcoded() -> Target:
    """the CPU-platform variant infers Python floats as ``torch.float32`` (the usual default) instead of torch's default dtype:
    under ``torch.set_default_dtype(torch.float64)``, ``[0.1]`` comes back float32."""

    def cpu(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        result = R.async_tensor_h2d_cpu(data, device, dtype, out)
        if (
            dtype is None
            and out is None
            and isinstance(data, (list, tuple))
            and result.dtype == torch.get_default_dtype() != torch.float32
        ):
            return result.to(torch.float32)
        return result

    return reference_target("cpu_variant_float32_hardcoded", cpu_variant=cpu)


@mutant(killed_by=("values",), by=("prop_values_autograd_and_default_dtype",))
def cpu_variant_not_detached() -> Target:
    """the CPU-platform variant takes a tensor without ``.detach()``: a result made from a tensor that
    requires grad stays in the caller's autograd graph."""

    def cpu(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        result = R.async_tensor_h2d_cpu(data, device, dtype, out)
        if isinstance(data, torch.Tensor) and data.requires_grad:
            return out.copy_(data) if out is not None else data.to(dtype=result.dtype, copy=True)
        return result

    return reference_target("cpu_variant_not_detached", cpu_variant=cpu)


@mutant(killed_by=("values",))
def cpu_index_zero_rejected() -> Target:
    """the device check refuses any explicit index on the host (the host has one device), so ``device="cpu:0"`` (and
    ``torch.device("cpu", 0)``), which torch accepts as the host, raises ValueError."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        dev = torch.device(device) if isinstance(device, str) else device
        if isinstance(dev, torch.device) and dev.type == "cpu" and dev.index is not None:
            raise ValueError(f"device={device!r}: the host takes no index")
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("cpu_index_zero_rejected", fn)


@mutant(killed_by=("values",), needs="cuda")
def numpy_device_index_dropped() -> Target:
    """a numpy integer device index (``np.int64(0)``) is taken as no device (mutmut ``_resolve_device`` 6:
    ``device = int(device)`` became ``device = None``): without out the call raises TypeError."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        return R.async_tensor_h2d(data, None if isinstance(device, np.integer) else device, dtype, out)

    return reference_target("numpy_device_index_dropped", fn)


@mutant(killed_by=("values",))
def warning_filter_without_category() -> Target:
    """a warning filter written ``simplefilter("ignore", None)`` around ``torch.from_numpy``: the first read-only
    ndarray of a process (torch warns once per process) makes the filter machinery raise TypeError, taken for an
    unsupported dtype; every later call is right (mutmut ``_numpy_to_tensor`` 38: whether a suite kills it
    depends on the order of earlier tests)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, np.ndarray) and not data.flags.writeable and _FIRST_READ_ONLY[0]:
            _FIRST_READ_ONLY[0] = False
            raise TypeError(f"data has numpy dtype {data.dtype}, which torch cannot represent")
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("warning_filter_without_category", fn)


@mutant(killed_by=("values",), by=("prop_values_special_table",))
def all_zero_list_shortcut() -> Target:
    """a flat list whose every element is falsy skips the conversion (``if not any(data): np.zeros(...)``): a list of
    -0.0 comes back as +0.0 (a signed zero is falsy)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if (
            isinstance(data, list)
            and data
            and all(type(v) is float for v in data)
            and not any(data)
            and dtype in (None, torch.float32, torch.float64)
        ):
            zeros = np.zeros(len(data), dtype=np.float64 if dtype is torch.float64 else np.float32)
            return R.async_tensor_h2d(zeros, device, dtype, out)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("all_zero_list_shortcut", fn)


@mutant(killed_by=("values",), by=("prop_values_sizes",))
def bfloat16_staged_through_float16_when_large() -> Target:
    """bfloat16 tensors of 8,192 elements or more are staged as float16 ("half the bandwidth of float32"): every value
    past float16's 65,504 becomes inf, its subnormals 0."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, torch.Tensor) and data.dtype is torch.bfloat16 and data.numel() >= 8192:
            data = data.to(torch.float16).to(torch.bfloat16)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("bfloat16_staged_through_float16_when_large", fn)


@mutant(killed_by=("values",), by=("prop_values_wide_numpy", "prop_values_layouts"))
def numpy_fast_path_first_stride() -> Target:
    """ndarrays whose first stride is the item size go to ``torch.from_numpy`` untouched: a negative stride in a later axis raises."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, np.ndarray) and data.ndim >= 2 and data.strides[0] == data.itemsize:
            data = torch.from_numpy(data)  # raises ValueError for a negative stride in another axis
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("numpy_fast_path_first_stride", fn)
