"""Mutants for the kinds round r57's author found missing: four defects of the reference itself that no contract saw
(a list's ints past 2**53 beside a float, a lazy view sent to a float16 pool, a ``np.timedelta64`` staged, a buffer
made under ``inference_mode`` and used after it).

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import buffer_utils as U
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils, stage_unchecked


@mutant(killed_by=("values",), by=("prop_values_int_edges",))
def list_ints_through_float64() -> Target:
    """A list holding a float, for an integer dtype, is built as a float64 array first ("one numpy call for mixed
    lists"): its ints past 2**53 reach the dtype rounded (2**53 + 1 is written 2**53)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        target = dtype if dtype is not None else (out.dtype if isinstance(out, torch.Tensor) else None)
        integer = isinstance(target, torch.dtype) and not (target.is_floating_point or target.is_complex)
        if integer and target != torch.bool and isinstance(data, list):
            flat = np.asarray(data, dtype=object).ravel()
            if any(isinstance(v, float) for v in flat) and all(isinstance(v, (int, float)) for v in flat):
                data = np.asarray(data, dtype=np.float64)
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("list_ints_through_float64", fn)


class _LazyStepConverted(U.UvaBufferPool):
    """A tensor step of another dtype is converted by one ``copy_`` into the slot's dtype first ("one conversion, then
    a same-dtype write"): torch's ``copy_`` of a negative-bit view into float16 drops the sign."""

    def copy_to_uva(self, x: Any) -> torch.Tensor:
        if isinstance(x, torch.Tensor) and x.dtype != self.dtype and x.device.type == "cpu":
            x = torch.empty(x.shape, dtype=self.dtype).copy_(x)
        return super().copy_to_uva(x)


@mutant(killed_by=("pool",), by=("prop_pool_rows",))
def pool_lazy_step_sign_dropped() -> Target:
    """``UvaBufferPool.copy_to_uva`` converts a tensor step of another dtype by ``copy_`` first: a float32 view with
    the negative bit sent to a float16 pool loses its sign."""
    return reference_target("pool_lazy_step_sign_dropped", buffer_utils=_utils(UvaBufferPool=_LazyStepConverted))


class _NumpyIntegersStaged(U.StagedWriteTensor):
    """Values checked by numpy's abstract number types ("every numpy integer and floating scalar"), which take
    ``np.timedelta64`` for an integer."""

    def stage_write(self, index: Any, start: Any, x: Any) -> None:
        values = list(x)
        if values and all(
            isinstance(v, (np.integer, np.floating)) or (isinstance(v, (int, float)) and not isinstance(v, bool))
            for v in values
        ):
            stage_unchecked(self, index, start, values)
            return
        super().stage_write(index, start, values)


@mutant(killed_by=("staged-write",), by=("prop_staged_bad_values",))
def staged_timedelta_accepted() -> Target:
    """``stage_write`` accepts a ``np.timedelta64`` value (a numpy integer type): staged, then every later
    ``apply_write`` raises and the writes staged beside it are stuck."""
    return reference_target("staged_timedelta_accepted", buffer_utils=_utils(StagedWriteTensor=_NumpyIntegersStaged))


class _CallingModeNonUva(U.NonUvaBuffer):
    """``NonUvaBuffer``'s tensors made in the calling mode (under ``inference_mode``: inference tensors)."""

    def __init__(self, size: Any, dtype: torch.dtype, device: Any = None) -> None:
        super().__init__(size, dtype, device)
        self.cpu = torch.zeros_like(self.cpu)
        self.np = self.cpu.numpy()
        self._uva = torch.zeros_like(self._uva)


@mutant(killed_by=("uva",), by=("prop_uva_in_contexts",))
def nonuva_made_in_calling_mode() -> Target:
    """``NonUvaBuffer`` allocates in the calling mode: made under ``inference_mode`` it cannot be written after it."""
    return reference_target("nonuva_made_in_calling_mode", buffer_utils=_utils(NonUvaBuffer=_CallingModeNonUva))


class _CallingModePool(U.UvaBufferPool):
    """Slots made, and grown, in the calling mode (the host-only slot class: ``NonUvaBuffer``'s, allocating there)."""

    def __init__(self, size: Any, dtype: torch.dtype, max_concurrency: int | None = None) -> None:
        super().__init__(size, dtype, max_concurrency)
        self._buffer_cls = _CallingModeNonUva
        self._uva_bufs = [_CallingModeNonUva(self._shape, self.dtype) for _ in range(self.max_concurrency)]


@mutant(killed_by=("pool",), by=("prop_pool_in_contexts",))
def pool_slots_made_in_calling_mode() -> Target:
    """``UvaBufferPool`` makes and grows its slots in the calling mode: a slot made or grown under ``inference_mode``
    cannot be written after it (on a host without UVA)."""
    return reference_target("pool_slots_made_in_calling_mode", buffer_utils=_utils(UvaBufferPool=_CallingModePool))


class _CallingModeStaged(U.StagedWriteTensor):
    """``.gpu`` made in the calling mode."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self._uva_buf is None:
            self.gpu = torch.zeros_like(self.gpu)


@mutant(killed_by=("staged-write",), by=("prop_staged_in_contexts",))
def staged_made_in_calling_mode() -> Target:
    """``StagedWriteTensor`` makes ``.gpu`` in the calling mode: made under ``inference_mode``, its apply after it
    raises."""
    return reference_target("staged_made_in_calling_mode", buffer_utils=_utils(StagedWriteTensor=_CallingModeStaged))


class _CallingModeBuffer(CpuGpuBuffer):
    """``.cpu`` and ``.gpu`` made in the calling mode."""

    def __init__(self, *size: Any, **kwargs: Any) -> None:
        super().__init__(*size, **kwargs)
        self.cpu = torch.empty_like(self.cpu, pin_memory=self.cpu.is_pinned()).zero_()
        self.gpu = torch.zeros_like(self.gpu)
        if self._np is not None:
            self._np = self.cpu.numpy()


@mutant(killed_by=("buffer",), by=("prop_buffer_made_in_contexts",))
def buffer_made_in_calling_mode() -> Target:
    """``CpuGpuBuffer`` allocates in the calling mode: made under ``inference_mode``, ``copy_to_gpu`` after it
    raises."""
    return reference_target("buffer_made_in_calling_mode", buffer_cls=_CallingModeBuffer)


class _ApplyDeterminismOff(U.StagedWriteTensor):
    """``apply_write`` switches deterministic algorithms off around its write ("index_copy_ has no deterministic CUDA
    kernel") and puts back only whether they were on: ``warn_only`` is lost."""

    def apply_write(self) -> None:
        was = torch.are_deterministic_algorithms_enabled()
        torch.use_deterministic_algorithms(False)
        try:
            super().apply_write()
        finally:
            torch.use_deterministic_algorithms(was)


@mutant(killed_by=("side-effects",), by=("prop_buffer_utils_side_effects",))
def apply_drops_deterministic_warn_only() -> Target:
    """``StagedWriteTensor.apply_write`` restores deterministic algorithms without ``warn_only``: a process that ran
    them in their warn-only form now raises where it warned."""
    return reference_target(
        "apply_drops_deterministic_warn_only", buffer_utils=_utils(StagedWriteTensor=_ApplyDeterminismOff)
    )


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table", "prop_bad_input"))
def interleaved_views_taken_as_disjoint() -> Target:
    """``data`` and ``out``, 2-D views of one storage with the same strides and different offsets, are taken as
    interleaved, hence disjoint ("a strided write never lands on a strided read of another phase"): the overlap
    refusal is skipped and the data copied first, though two windows a row apart share elements."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if (
            isinstance(data, torch.Tensor)
            and isinstance(out, torch.Tensor)
            and data is not out
            and data.dim() == out.dim() == 2
            and data.stride() == out.stride()
            and data.untyped_storage().data_ptr() == out.untyped_storage().data_ptr()
            and data.storage_offset() != out.storage_offset()
        ):
            data = data.clone()  # "disjoint": the refusal is not needed
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("interleaved_views_taken_as_disjoint", fn)


@mutant(killed_by=("values",), by=("prop_values_list_leaf_kinds",))
def typed_list_plain_number_rules() -> Target:
    """A list of typed leaves that ``torch.tensor`` refuses (tensors of several elements) gets the plain-number rules'
    dtype ("as torch.tensor infers numbers"): float64 tensors come out float32, int16 ones int64."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if dtype is None and out is None and isinstance(data, list) and any(isinstance(v, torch.Tensor) for v in data):
            try:
                torch.tensor(data)
            except (TypeError, ValueError, RuntimeError):
                kind = np.asarray(data).dtype.kind
                dtype = torch.get_default_dtype() if kind == "f" else torch.int64 if kind in "iu" else None
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("typed_list_plain_number_rules", fn)


class _RowsMemo(CpuGpuBuffer):
    """The last valid ``n`` of ``copy_to_gpu`` remembered: an ``n`` equal to it is taken without the check."""

    def copy_to_gpu(self, n: Any = None) -> torch.Tensor:
        last = self.__dict__.get("_last_n")
        if last is not None and n is not None and not isinstance(n, torch.Tensor) and n == last:
            n = last
        view = super().copy_to_gpu(n)
        if isinstance(n, int):
            self._last_n = n
        return view


@mutant(killed_by=("buffer",), by=("prop_buffer_bad_rows_after_valid",))
def buffer_rows_memo_by_equality() -> Target:
    """``CpuGpuBuffer.copy_to_gpu`` skips the row-count check for an ``n`` equal to the last valid one: 2.0 after 2,
    True after 1, copied."""
    return reference_target("buffer_rows_memo_by_equality", buffer_cls=_RowsMemo)


class _EmptyWhenDeterministic(CpuGpuBuffer):
    """Under deterministic algorithms the tensors are allocated with ``torch.empty`` ("torch fills uninitialised
    memory itself there: no second pass"): torch's fill is NaN or the dtype's largest value, not zero."""

    def __init__(self, *size: Any, **kwargs: Any) -> None:
        super().__init__(*size, **kwargs)
        if torch.are_deterministic_algorithms_enabled():
            self.cpu = torch.empty_like(self.cpu, pin_memory=self.cpu.is_pinned())
            self.gpu = torch.empty_like(self.gpu)
            if self._np is not None:
                self._np = self.cpu.numpy()


@mutant(killed_by=("buffer",), by=("prop_buffer_made_in_contexts",))
def buffer_empty_when_deterministic() -> Target:
    """``CpuGpuBuffer`` made under deterministic algorithms is not zero-initialised (torch's fill: 2**31 - 1 in an
    int32 buffer)."""
    return reference_target("buffer_empty_when_deterministic", buffer_cls=_EmptyWhenDeterministic)


class _HostRecycled(CpuGpuBuffer):
    """A dropped buffer's ``.cpu`` is kept and handed, zeroed, to the next buffer of its shape and dtype ("pinning
    costs a millisecond a MiB"), whatever views of it are still held."""

    _free: list[torch.Tensor] = []

    def __init__(self, *size: Any, **kwargs: Any) -> None:
        super().__init__(*size, **kwargs)
        for k, old in enumerate(self._free):
            if old.shape == self.cpu.shape and old.dtype == self.cpu.dtype:
                self.cpu = self._free.pop(k).zero_()
                if self._np is not None:
                    self._np = self.cpu.numpy()
                break

    def __del__(self) -> None:
        self._free.append(self.cpu)


@mutant(killed_by=("buffer",), by=("prop_buffer_copy_sizes",))
def buffer_host_recycled() -> Target:
    """A dropped ``CpuGpuBuffer``'s host tensor is recycled into the next buffer of its size: a ``copy_to_cpu`` view
    the caller still holds changes when the new buffer is written."""
    return reference_target("buffer_host_recycled", buffer_cls=_HostRecycled)
