"""Mutants for the kinds the outside round r36 found missing (the contract checks added for them must kill these).

Each is the reference with one realistic change of the kind: a cached empty result, a buffer
copy that rebinds ``.gpu``, a staged write that keeps the caller's list, a fused apply that
writes tensor by tensor or checks its tables by length, an ``isinstance`` narrowed to the
exact ndarray type, and a CPU variant that hands its call to the main path.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils

_EMPTY: dict[tuple[Any, ...], torch.Tensor] = {}


@mutant(killed_by=("no-alias",), by=("prop_no_alias_sizes",))
def empty_result_cached() -> Target:
    """An empty result is one cached tensor per (dtype, device): two calls return the same object."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        result = h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
        if out is None and result.numel() == 0:
            return _EMPTY.setdefault((result.dtype, result.device, tuple(result.shape)), result)
        return result

    return reference_target("empty_result_cached", fn)


@mutant(killed_by=("values",), by=("prop_values_layouts",))
def ndarray_exact_type() -> Target:
    """Arrays are recognised by ``type(data) is np.ndarray``: a subclass (np.memmap) is refused as unsupported data."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, np.ndarray) and type(data) is not np.ndarray:
            raise TypeError(f"unsupported data type {type(data).__name__}")
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("ndarray_exact_type", fn)


@mutant(killed_by=("buffer",), by=("prop_buffer_copy",))
def buffer_full_copy_rebinds_gpu() -> Target:
    """``copy_to_gpu()`` of every row makes a new ``.gpu`` (``self.gpu = self.cpu.to(device)``) instead of writing into it."""

    class Buffer(h2d_impl.CpuGpuBuffer):
        def copy_to_gpu(self, n: Any = None) -> torch.Tensor:
            if n is None:
                self.gpu = self.cpu.to(self.gpu.device, copy=True)
                return self.gpu
            return super().copy_to_gpu(n)

    return reference_target("buffer_full_copy_rebinds_gpu", buffer_cls=Buffer)


@mutant(killed_by=("staged-write",), by=("prop_staged_writes",))
def staged_write_keeps_caller_list() -> Target:
    """stage_write keeps the caller's list itself (no copy): values changed after staging are what apply_write writes."""

    class Staged(U.StagedWriteTensor):
        def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
            super().stage_write(index, start, x)
            if isinstance(x, list) and x:
                self._kept = [*getattr(self, "_kept", []), (len(self._staged_write_contents) - len(x), x)]

        def staged_positions(self) -> tuple[np.ndarray, list[int | float]]:
            positions, values = super().staged_positions()
            for at, kept in getattr(self, "_kept", []):
                values[at : at + len(kept)] = kept
            return positions, values

        def clear_staged_writes(self) -> None:
            super().clear_staged_writes()
            self._kept = []

    return reference_target("staged_write_keeps_caller_list", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("fused-writes",), by=("prop_fused_refused",))
def fused_tables_by_length() -> Target:
    """FusedStagedWriter checks its pointer and stride tables by length only: swapped tables are accepted."""

    class Fused(U.FusedStagedWriter):
        def apply(self, tensors: Any, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
            if len(output_ptrs) != len(tensors) or len(output_strides) != len(tensors):
                raise ValueError("output_ptrs and output_strides need one entry per tensor")
            pending = [t for t in tensors if t._staged_write_indices]
            converted = [U._converted(t) for t in pending]
            for t, (positions, contents) in zip(pending, converted, strict=True):
                U._write(t.gpu, positions, contents)
            for t in tensors:
                t.clear_staged_writes()

    return reference_target("fused_tables_by_length", buffer_utils=_utils(FusedStagedWriter=Fused))


@mutant(killed_by=("fused-writes",), by=("prop_fused_refused",))
def fused_writes_tensor_by_tensor() -> Target:
    """The fused apply converts and writes each tensor in turn: a value past one tensor's dtype leaves the earlier written."""

    class Fused(U.FusedStagedWriter):
        def apply(self, tensors: Any, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
            for t in tensors:
                if t._staged_write_indices:
                    U._write(t.gpu, *U._converted(t))
            for t in tensors:
                t.clear_staged_writes()

    return reference_target("fused_writes_tensor_by_tensor", buffer_utils=_utils(FusedStagedWriter=Fused))


@mutant(killed_by=("cpu-path",), needs="cuda", by=("prop_cpu_variant_devices",))
def cpu_variant_delegates_to_main() -> Target:
    """The CPU-platform variant hands its call to the main function (one code path): on a CUDA host it copies to the GPU."""

    def variant(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("cpu_variant_delegates_to_main", cpu_variant=variant)
