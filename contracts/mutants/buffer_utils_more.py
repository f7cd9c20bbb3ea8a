"""Mutants for the Model Runner V2 kinds added after the first outside round of these classes (r37).

Each is the reference's ``h2d_impl.buffer_utils`` with one class replaced by a subclass
carrying one realistic bug: unchecked arguments vLLM leaves to its callers, a
``copy_to_gpu`` that hands out the slot, a ``.gpu`` not refreshed, state lost on a failed
apply, values wrapped by a numpy cast, a UVA request honoured without UVA, a writer that
caps its writes, and a buffer allocated uninitialised.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils


@mutant(killed_by=("pool",), by=("prop_pool_depth",))
def pool_depth_unchecked() -> Target:
    """UvaBufferPool takes any ``max_concurrency`` (vLLM's): 0 makes a pool of no slots, a bool one slot."""

    class Pool(U.UvaBufferPool):
        def __init__(self, size: Any, dtype: torch.dtype, max_concurrency: Any = None) -> None:
            depth = U.DEFAULT_MAX_CONCURRENCY if max_concurrency is None else max_concurrency
            super().__init__(size, dtype, max(1, int(depth)))
            self.max_concurrency = depth

    return reference_target("pool_depth_unchecked", buffer_utils=_utils(UvaBufferPool=Pool))


@mutant(killed_by=("pool",), by=("prop_pool_steps",))
def pool_copy_to_gpu_is_the_slot() -> Target:
    """``copy_to_gpu(x)`` without ``out`` returns the slot's view itself ("the clone is an extra copy"): the next steps overwrite it."""

    class Pool(U.UvaBufferPool):
        def copy_to_gpu(self, x: Any, out: torch.Tensor | None = None) -> torch.Tensor:
            view = self.copy_to_uva(x)
            return view if out is None else out.copy_(view, non_blocking=True)

    return reference_target("pool_copy_to_gpu_is_the_slot", buffer_utils=_utils(UvaBufferPool=Pool))


@mutant(killed_by=("pool",), by=("prop_backed_steps",))
def backed_gpu_not_refreshed() -> Target:
    """UvaBackedTensor.copy_to_uva(n) returns the new view but leaves ``.gpu`` on the previous slot's."""

    class Backed(U.UvaBackedTensor):
        def copy_to_uva(self, n: int | None = None) -> torch.Tensor:
            old = self.gpu
            view = super().copy_to_uva(n)
            self.gpu = old
            return view

    return reference_target("backed_gpu_not_refreshed", buffer_utils=_utils(UvaBackedTensor=Backed))


@mutant(killed_by=("pool",), by=("prop_backed_rows",))
def backed_rows_sliced() -> Target:
    """UvaBackedTensor.copy_to_uva(n) slices ``.np[:n]`` unchecked (vLLM's): n past the rows is clamped, -1 drops a row."""

    class Backed(U.UvaBackedTensor):
        def copy_to_uva(self, n: int | None = None) -> torch.Tensor:
            self.gpu = self.pool.copy_to_uva(self.np[:n] if n is not None else self.np)
            return self.gpu

    return reference_target("backed_rows_sliced", buffer_utils=_utils(UvaBackedTensor=Backed))


@mutant(killed_by=("staged-write",), by=("prop_staged_writes",))
def staged_elem_unchecked() -> Target:
    """stage_write_elem appends its write without the bounds check stage_write has (a fast path for single values)."""

    class Staged(U.StagedWriteTensor):
        def stage_write_elem(self, index: int, x: int) -> None:
            self._staged_write_indices.append(index)
            self._staged_write_starts.append(0)
            self._staged_write_contents.append(x)
            self._staged_write_cu_lens.append(len(self._staged_write_contents))
            self._staged_write_max_len = max(self._staged_write_max_len, 1)

    return reference_target("staged_elem_unchecked", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("staged-write",), by=("prop_staged_writes",))
def staged_empty_write_unchecked() -> Target:
    """stage_write returns early on an empty ``x`` before checking ``index`` and ``start``."""

    class Staged(U.StagedWriteTensor):
        def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
            values = list(x)
            if values:
                super().stage_write(index, start, values)

    return reference_target("staged_empty_write_unchecked", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("staged-write",), by=("prop_staged_writes",))
def staged_failed_apply_clears() -> Target:
    """apply_write clears the staged writes whether or not the apply succeeded (a ``finally``): a refused apply loses them."""

    class Staged(U.StagedWriteTensor):
        def apply_write(self) -> None:
            try:
                super().apply_write()
            finally:
                self.clear_staged_writes()

    return reference_target("staged_failed_apply_clears", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("staged-write",), by=("prop_staged_writes",))
def staged_values_wrap() -> Target:
    """apply_write converts staged values with a numpy cast (``np.array(values).astype(...)``): 2**31 into int32 wraps."""

    class Staged(U.StagedWriteTensor):
        def apply_write(self) -> None:
            if not self._staged_write_indices:
                return
            positions, values = self.staged_positions()
            np_dtype = {torch.int32: np.int32, torch.int64: np.int64, torch.float32: np.float32}[self.dtype]
            contents = torch.from_numpy(np.array(values).astype(np_dtype))  # astype wraps where it overflows
            U._write(self.gpu, positions, contents.to(self.gpu.device))
            self.clear_staged_writes()

    return reference_target("staged_values_wrap", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("staged-write",), by=("prop_staged_writes",))
def staged_uva_without_uva() -> Target:
    """``uva_instead_of_gpu=True`` makes a UvaBuffer whether or not UVA is available: RuntimeError on a host without it."""

    class Staged(U.StagedWriteTensor):
        def __init__(
            self,
            size: Any,
            dtype: torch.dtype,
            device: Any,
            max_concurrency: Any = None,
            uva_instead_of_gpu: bool = False,
        ) -> None:
            super().__init__(size, dtype, device, max_concurrency, uva_instead_of_gpu)
            if uva_instead_of_gpu and self._uva_buf is None:
                self._uva_buf = U.UvaBuffer(tuple(self.gpu.shape), dtype)

    return reference_target("staged_uva_without_uva", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("fused-writes",), by=("prop_fused_writes",))
def fused_max_writes_is_a_cap() -> Target:
    """FusedStagedWriter refuses more staged writes than ``max_writes`` (vLLM's pools grow past it)."""

    class Fused(U.FusedStagedWriter):
        def apply(self, tensors: Any, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
            if sum(len(t._staged_write_indices) for t in tensors) > self.max_writes:
                raise ValueError(f"more staged writes than max_writes={self.max_writes}")
            super().apply(tensors, output_ptrs, output_strides)

    return reference_target("fused_max_writes_is_a_cap", buffer_utils=_utils(FusedStagedWriter=Fused))


@mutant(killed_by=("uva",), by=("prop_uva_rows",))
def uva_buffer_uninitialised() -> Target:
    """The buffers' ``.cpu`` is allocated with ``torch.empty`` ("every row is written before it is read"): freed bytes show."""

    class NonUva(U.NonUvaBuffer):
        def __init__(self, size: Any, dtype: torch.dtype, device: Any = None) -> None:
            super().__init__(size, dtype, device)
            self.cpu = torch.empty(tuple(self.cpu.shape), dtype=dtype)
            self.np = self.cpu.numpy()

    class Uva(U.UvaBuffer):
        def __init__(self, size: Any, dtype: torch.dtype) -> None:
            super().__init__(size, dtype)
            self.cpu = torch.empty(tuple(self.cpu.shape), dtype=dtype, pin_memory=True)
            self.np = self.cpu.numpy()
            self._uva = U.uva_view(self.cpu)

    return reference_target("uva_buffer_uninitialised", buffer_utils=_utils(NonUvaBuffer=NonUva, UvaBuffer=Uva))


@mutant(killed_by=("pool",), needs="cuda")
def pool_retired_never_pruned() -> Target:
    """A grown slot's old pinned block is kept for the pool's life: the retired list is only appended to."""

    class Pool(U.UvaBufferPool):
        def _retire(self, buf: Any) -> None:
            if isinstance(buf, U.UvaBuffer) and torch.cuda.is_available():
                event = torch.cuda.Event()
                event.record()
                self._retired.append((buf, event))

    return reference_target("pool_retired_never_pruned", buffer_utils=_utils(UvaBufferPool=Pool))
