"""Mutants for the kinds the outside round r53 found missing on the CPU (the kit at 715745b).

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import Any

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import buffer_utils as U
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer, row_count

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils, stage_unchecked


class _WholeTwinCopied(U.NonUvaBuffer):
    """``uva(n)`` refreshes the whole twin, then slices it ("one copy, no slicing of the source")."""

    def uva(self, n: int | None = None) -> torch.Tensor:
        rows = row_count(n, self.cpu.shape[0]) if n is not None else None
        self._uva.copy_(self.cpu, non_blocking=True)
        return self._uva if rows is None else self._uva[:rows]


@mutant(killed_by=("uva",), by=("prop_uva_rows",))
def nonuva_rows_by_whole_copy() -> Target:
    """``NonUvaBuffer.uva(n)`` copies every row of ``.cpu`` into the twin and returns its first ``n``: rows past ``n``
    that a reader of an earlier ``uva()`` still holds take the host's newer values."""
    return reference_target("nonuva_rows_by_whole_copy", buffer_utils=_utils(NonUvaBuffer=_WholeTwinCopied))


class _PoolDtypeListed(U.UvaBufferPool):
    """The pool checks its dtype against ``StagedWriteTensor``'s list (int32, int64, float32)."""

    def __init__(self, size: Any, dtype: torch.dtype, max_concurrency: int | None = None) -> None:
        U._dtype(dtype, U.STAGED_WRITE_DTYPES)
        super().__init__(size, dtype, max_concurrency)


@mutant(killed_by=("pool",), by=("prop_pool_rows",))
def pool_dtype_allow_list() -> Target:
    """``UvaBufferPool`` refuses a dtype outside int32, int64 and float32 with ValueError (the staged-write list):
    a pool of bool or float16 cannot be built."""
    return reference_target("pool_dtype_allow_list", buffer_utils=_utils(UvaBufferPool=_PoolDtypeListed))


class _AnyNumpyNumber(U.StagedWriteTensor):
    """Values tested by ``np.number``: numpy complex scalars and numpy bools are staged."""

    def stage_write(self, index: Any, start: Any, x: Any) -> None:
        try:
            values = list(x)
        except TypeError:
            values = x
        if isinstance(values, list) and any(isinstance(v, (np.complexfloating, np.bool_)) for v in values):
            stage_unchecked(self, index, start, values)
            return
        super().stage_write(index, start, values)


@mutant(killed_by=("staged-write",), by=("prop_staged_bad_values",))
def staged_values_any_numpy_number() -> Target:
    """``stage_write`` takes any numpy scalar among its values: ``np.complex64(1)`` or ``np.bool_(True)`` is staged,
    and every later apply fails on it (or writes a bool as a number)."""
    return reference_target("staged_values_any_numpy_number", buffer_utils=_utils(StagedWriteTensor=_AnyNumpyNumber))


class _TuplesTaken(U.UvaBufferPool):
    """A tuple step taken as a list ("any sequence of rows")."""

    def copy_to_uva(self, x: Any) -> torch.Tensor:
        return super().copy_to_uva(list(x) if isinstance(x, tuple) else x)


@mutant(killed_by=("pool",), by=("prop_pool_rows",))
def pool_takes_tuples() -> Target:
    """``UvaBufferPool.copy_to_uva`` takes a tuple as a list, where the reference refuses every step that is no
    tensor, ndarray or list with TypeError naming ``x``."""
    return reference_target("pool_takes_tuples", buffer_utils=_utils(UvaBufferPool=_TuplesTaken))


class _ListsAsArrays(U.UvaBufferPool):
    """A list step made an array of its own dtype first ("one conversion, then a plain copy"): past the pool's
    integer range it is wrapped by the array assignment."""

    def copy_to_uva(self, x: Any) -> torch.Tensor:
        return super().copy_to_uva(np.asarray(x) if isinstance(x, list) else x)


@mutant(killed_by=("pool",), by=("prop_pool_rows",))
def pool_lists_as_arrays() -> Target:
    """``UvaBufferPool.copy_to_uva`` turns a list into an ndarray before writing it: ``[1, 2**40]`` into an int32 pool
    is written wrapped (``[1, 0]``), where numpy's list assignment raises OverflowError."""
    return reference_target("pool_lists_as_arrays", buffer_utils=_utils(UvaBufferPool=_ListsAsArrays))


@mutant(killed_by=("side-effects",), by=("prop_side_effects_table",))
def large_copy_pins_core() -> Target:
    """A large ndarray's copy pins the calling thread to one core ("keep the numpy copy off the OpenMP workers'
    cores") and never restores the affinity: the process runs on one CPU after the call (seen where it has two or
    more)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, np.ndarray) and data.size > 1 << 15 and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("large_copy_pins_core", fn)


class _WholeRowsReturnTwin(CpuGpuBuffer):
    """``copy_to_gpu(n)`` with ``n`` equal to the capacity takes the all-rows branch ("skip the two slices")."""

    def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
        if n is not None and not isinstance(n, bool) and isinstance(n, int) and n == self.gpu.shape[0]:
            return self.gpu.copy_(self.cpu, non_blocking=True)
        return super().copy_to_gpu(n)


@mutant(killed_by=("buffer",), by=("prop_buffer_copy_sizes",))
def buffer_whole_rows_return_twin() -> Target:
    """``CpuGpuBuffer.copy_to_gpu(n)`` with ``n == capacity`` returns ``.gpu`` itself instead of ``.gpu[:n]``: an
    in-place change the caller makes to its rows (``unsqueeze_``) reshapes the buffer's tensor."""
    return reference_target("buffer_whole_rows_return_twin", buffer_cls=_WholeRowsReturnTwin)


class _CopyBehindTorch(CpuGpuBuffer):
    """A host twin written through numpy views ("a plain memcpy, no OpenMP region"): torch never sees the write."""

    def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
        if self.gpu.device.type == "cpu" and self.gpu.dtype in (torch.int32, torch.int64, torch.float32):
            rows = self.gpu.shape[0] if n is None else int(n)
            if 0 < rows <= self.gpu.shape[0] and not isinstance(n, bool):
                np.copyto(self.gpu[:rows].numpy(), self.cpu[:rows].numpy())
                return self.gpu if n is None else self.gpu[:rows]
        return super().copy_to_gpu(n)


@mutant(killed_by=("buffer",), by=("prop_buffer_copy_sizes",))
def buffer_copy_behind_torch() -> Target:
    """A ``CpuGpuBuffer`` whose twin is host memory copies its rows with ``np.copyto`` on numpy views: the values are
    right, but ``.gpu``'s version counter does not advance (autograd's saved-tensor check misses the write)."""
    return reference_target("buffer_copy_behind_torch", buffer_cls=_CopyBehindTorch)


@mutant(killed_by=("side-effects",), by=("prop_side_effects_table",))
def long_list_raises_gc_thresholds() -> Target:
    """A flat list past 4,096 elements raises the collector's first threshold to 50,000 when it is lower ("fewer
    collections while numpy builds the array") and never puts it back: the process collects less often after the
    call (only the first such call of a process changes it: the check's "as the process started" puts it back)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, list) and len(data) > 4096 and gc.get_threshold()[0] < 50_000:
            gc.set_threshold(50_000, *gc.get_threshold()[1:])
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("long_list_raises_gc_thresholds", fn)


@mutant(killed_by=("side-effects",), by=("prop_side_effects_table",))
def huge_int_message_lifts_limit() -> Target:
    """A list holding an int past Python's integer-string limit turns the limit off (``sys.set_int_max_str_digits(0)``)
    so that the refusal can echo the value, and leaves it off: the interpreter's guard against quadratic int/str
    conversions is gone for the process."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, list) and any(isinstance(v, int) and v.bit_length() > 14_000 for v in data):
            sys.set_int_max_str_digits(0)
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("huge_int_message_lifts_limit", fn)
