"""Mutants whose bug shows only past a size threshold: the reference until some element or row count, then one realistic shortcut.

Killed by the size tables of the values, out, input-untouched and no-alias contracts
(``prop_values_sizes``, ``prop_values_rows``, ``prop_values_conversion_sizes``,
``prop_out_sizes``, ``prop_input_untouched_sizes``, ``prop_no_alias_sizes``); every small
input of the other properties passes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import mutant, reference_target


def _numel(data: Any) -> int:
    if isinstance(data, torch.Tensor):
        return data.numel()
    if isinstance(data, np.ndarray):
        return data.size
    return len(data) if isinstance(data, list) else 0


@mutant(killed_by=("values",), by=("prop_values_sizes",))
def long_int_list_through_float32() -> Target:
    """flat int lists longer than 65,536 elements are converted through float32 (a "fast path" for big lists): ints past 2**24 lose bits."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, list) and len(data) > 65536 and isinstance(data[0], int) and not isinstance(data[0], bool):
            target = dtype or (out.dtype if out is not None else torch.int64)
            data = torch.tensor(np.asarray(data, dtype=np.float32)).to(target)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("long_int_list_through_float32", fn)


@mutant(killed_by=("values",), by=("prop_values_sizes",))
def large_permuted_tensor_keeps_strides() -> Target:
    """a dense permuted tensor of more than 2,048 elements is copied with ``.to(device, copy=True)``, which keeps its strides: the result is not contiguous."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if (
            out is None
            and isinstance(data, torch.Tensor)
            and data.numel() > 2048
            and not data.is_contiguous()
            and data.dim() == 2
            and data.stride(0) == 1
        ):
            target = R._resolve_device(device)  # white-box: the reference's own device parsing
            return data.detach().to(device=target, dtype=dtype or data.dtype, copy=True)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("large_permuted_tensor_keeps_strides", fn)


@mutant(killed_by=("values",), by=("prop_values_rows",))
def rows_past_1024_left_zero() -> Target:
    """2-D lists of more than 1,024 rows are converted 1,024 rows at a time into a zeroed tensor; the last partial block is never copied."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if isinstance(data, list) and len(data) > 1024 and isinstance(data[0], list) and out is None:
            full = R.async_tensor_h2d(data, "cpu", dtype, None)
            kept = torch.zeros_like(full)
            end = len(data) // 1024 * 1024
            kept[:end] = full[:end]
            return R.async_tensor_h2d(kept, device, None, None)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("rows_past_1024_left_zero", fn)


@mutant(killed_by=("values",), by=("prop_values_conversion_sizes",))
def same_size_conversion_as_bit_view() -> Target:
    """tensors of at least 2**18 elements converted to a dtype of the same item size are reinterpreted (``.view(dtype)``), not converted."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if (
            isinstance(data, torch.Tensor)
            and dtype is not None
            and dtype != data.dtype
            and data.numel() >= 1 << 18
            and data.element_size() == torch.empty(0, dtype=dtype).element_size()
            and dtype is not torch.bool
            and data.dtype is not torch.bool
        ):
            return R.async_tensor_h2d(data.contiguous().view(dtype), device, None, out)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("same_size_conversion_as_bit_view", fn)


@mutant(killed_by=("out",), by=("prop_out_sizes",))
def large_strided_out_written_through_temp() -> Target:
    """an ``out`` of more than 4,096 elements that is not contiguous is written as ``out.reshape(-1).copy_(...)``: a copy, so out keeps its zeros."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is not None and out.numel() > 4096 and not out.is_contiguous():
            result = R.async_tensor_h2d(data, out.device, dtype or out.dtype, None)
            out.reshape(-1).copy_(result.reshape(-1))
            return out
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("large_strided_out_written_through_temp", fn)


@mutant(killed_by=("input-untouched",), by=("prop_input_untouched_sizes",))
def large_array_used_as_scratch() -> Target:
    """contiguous ndarrays of at least 2**16 elements are reversed in place to compute their range check, and the copy is made before they are put back only half the time: the caller's array is left reversed."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if (
            isinstance(data, np.ndarray)
            and data.size >= 1 << 16
            and data.flags.c_contiguous
            and data.flags.writeable
            and data.ndim == 1
        ):
            result = R.async_tensor_h2d(data.copy(), device, dtype, out)
            data[:] = data[::-1].copy()  # "scratch" use of the caller's memory, never undone
            return result
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("large_array_used_as_scratch", fn)


@mutant(killed_by=("no-alias",), by=("prop_no_alias_sizes",))
def large_host_tensor_returned_as_is() -> Target:
    """on the host, a contiguous tensor of more than 131,072 elements that needs no conversion is returned itself ("nothing to copy")."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if (
            out is None
            and isinstance(data, torch.Tensor)
            and data.numel() > 131072
            and data.is_contiguous()
            and (dtype is None or dtype == data.dtype)
            and str(device) == "cpu"
        ):
            return data
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("large_host_tensor_returned_as_is", fn)
