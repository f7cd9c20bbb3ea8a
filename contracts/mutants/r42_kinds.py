"""Mutants for the kinds the outside rounds r42 and r43 found missing (the contract checks added for them must kill these).

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils


@mutant(killed_by=("values",), by=("prop_values_int_edges",))
def int_range_check_through_float64() -> Target:
    """An integer array converted to another integer dtype is range-checked as floats are ("one check for every
    source": as float64, against ``max + 1``): ``float64(2**63 - 1)`` is ``2**63``, so the largest int64 value, from a
    uint64 array, is refused as out of range."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        target = dtype if dtype is not None else None if out is None else out.dtype
        if (
            isinstance(data, np.ndarray)
            and data.dtype.kind in "iu"
            and target is not None
            and not target.is_floating_point
        ):
            if target is not torch.bool and data.size:
                info = torch.iinfo(target)
                wide = data.astype(np.float64)
                # the float branch's test, exact for floats: below min, or at max + 1 or past it
                if bool((wide < info.min).any() or (wide >= float(info.max) + 1.0).any()):
                    raise ValueError(f"data is out of range for {target}")
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("int_range_check_through_float64", fn)


@mutant(killed_by=("values",), by=("prop_values_list_leaf_kinds",))
def flat_complex_list_as_default_float() -> Target:
    """A flat list of Python numbers takes the default float dtype whenever it is not all ints or bools ("floats are
    the default"): a list of complex numbers is refused as complex-to-real."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        flat = isinstance(data, list) and data and all(type(v) in (bool, int, float, complex) for v in data)
        if flat and dtype is None and out is None and any(type(v) is complex for v in data):
            dtype = torch.get_default_dtype()
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("flat_complex_list_as_default_float", fn)


@mutant(killed_by=("fused-writes",), by=("prop_fused_refused",))
def fused_tables_compared_by_zip() -> Target:
    """``FusedStagedWriter.apply`` compares the pointer and stride tables with the tensors pair by pair through
    ``zip`` ("no list to build"): a table one entry short or long passes."""

    class Fused(U.FusedStagedWriter):
        def apply(
            self, tensors: Sequence[U.StagedWriteTensor], output_ptrs: torch.Tensor, output_strides: torch.Tensor
        ) -> None:
            ptrs, strides = output_ptrs.tolist(), output_strides.tolist()
            if any(int(p) != t.gpu.data_ptr() for p, t in zip(ptrs, tensors, strict=False)):
                raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
            if any(int(s) != t.gpu.stride(0) for s, t in zip(strides, tensors, strict=False)):
                raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
            whole = [t.gpu.data_ptr() for t in tensors], [t.gpu.stride(0) for t in tensors]
            super().apply(tensors, torch.tensor(whole[0], dtype=torch.uint64), torch.tensor(whole[1]))

    return reference_target("fused_tables_compared_by_zip", buffer_utils=_utils(FusedStagedWriter=Fused))


@mutant(killed_by=("pool",), by=("prop_pools_interleaved",))
def pool_cursor_shared_by_all_pools() -> Target:
    """``UvaBufferPool`` takes its next slot from one counter of the class ("a ticket per call"): with two pools in
    use, a pool's calls skip slots, and its next call lands in a slot whose reader is still in flight."""

    tickets = itertools.count()

    class Pool(U.UvaBufferPool):
        def copy_to_uva(self, x: Any) -> torch.Tensor:
            self._curr = next(tickets) % self.max_concurrency - 1  # the reference advances from _curr by one
            return super().copy_to_uva(x)

    return reference_target("pool_cursor_shared_by_all_pools", buffer_utils=_utils(UvaBufferPool=Pool))


# The kinds the outside round r43 found missing.


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table",))
def out_checks_skipped_when_out_is_data() -> Target:
    """``out`` that *is* ``data`` skips the checks of ``out`` ("it is the caller's own tensor, already valid"): an
    ``out`` requiring grad, given as the data too, reaches torch's in-place copy and its RuntimeError."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(out, torch.Tensor) and out is data:
            written: torch.Tensor = out.copy_(data if dtype is None else data.to(dtype))
            return written
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("out_checks_skipped_when_out_is_data", fn)


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table",))
def dtype_check_memoised() -> Target:
    """The ``dtype`` check is memoised (``functools.lru_cache``: "the same few dtypes every step"): an unhashable
    ``dtype`` raises the cache's "unhashable type", naming no argument."""

    @functools.cache
    def known(dtype: Any) -> None:
        return None

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        known(dtype)
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("dtype_check_memoised", fn)


@mutant(killed_by=("values",), by=("prop_values_fields",))
def field_strides_by_alignment() -> Target:
    """A strided array is viewed in place when its strides are multiples of the dtype's *alignment* (numpy's rule),
    not its item size: a complex64 field (alignment 4, item 8) out of a structured array reaches ``torch.from_numpy``,
    which refuses it."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, np.ndarray) and data.dtype.fields is None and data.ndim:
            if all(s >= 0 and s % data.dtype.alignment == 0 for s in data.strides):
                data = torch.from_numpy(data)  # raises where a stride is not a multiple of the item size
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("field_strides_by_alignment", fn)


@mutant(killed_by=("buffer",), by=("prop_buffer_spellings",))
def with_numpy_tested_with_is() -> Target:
    """``CpuGpuBuffer`` makes ``.np`` only when ``with_numpy is True`` ("an explicit flag"): ``with_numpy=np.True_``,
    a numpy bool from a config array, builds a buffer without ``.np``."""

    class Buffer(h2d_impl.CpuGpuBuffer):
        def __init__(self, *size: int, with_numpy: bool = True, **kwargs: Any) -> None:
            super().__init__(*size, with_numpy=with_numpy is True, **kwargs)

    return reference_target("with_numpy_tested_with_is", buffer_cls=Buffer)


@mutant(killed_by=("staged-write",), by=("prop_staged_overlaps",))
def staged_writes_sorted_by_row_and_start() -> Target:
    """``apply_write`` sorts the staged writes by row and start first ("coalesced stores"): of two overlapping writes
    into one row, the one starting later lands last, whichever was staged last."""

    class Staged(U.StagedWriteTensor):
        def apply_write(self) -> None:
            ends = self._staged_write_cu_lens
            writes = [
                (row, start, self._staged_write_contents[(ends[k - 1] if k else 0) : ends[k]])
                for k, (row, start) in enumerate(
                    zip(self._staged_write_indices, self._staged_write_starts, strict=True)
                )
            ]
            self.clear_staged_writes()
            for row, start, values in sorted(writes, key=lambda w: (w[0], w[1])):
                self.stage_write(row, start, values)
            super().apply_write()

    return reference_target("staged_writes_sorted_by_row_and_start", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("pool",), by=("prop_pools_interleaved",))
def pool_default_depth_one() -> Target:
    """A pool built without ``max_concurrency`` gets one slot ("callers that care pass a depth"): its reader is
    overwritten by the very next call, where vLLM's default keeps two in flight."""

    class Pool(U.UvaBufferPool):
        def __init__(self, size: int | Sequence[int], dtype: torch.dtype, max_concurrency: int | None = None) -> None:
            super().__init__(size, dtype, 1 if max_concurrency is None else max_concurrency)

    return reference_target("pool_default_depth_one", buffer_utils=_utils(UvaBufferPool=Pool))
