"""Mutants for the kinds the outside rounds r54 and r55 found missing on the CPU (the kit at 5c0bb73).

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

import gc
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import buffer_utils as U
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils


class _HostOutDirect(U.UvaBufferPool):
    """``copy_to_gpu(x, out=)`` with a host ``out`` copies ``x`` straight into it ("no hop through a slot")."""

    def copy_to_gpu(self, x: Any, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is not None and out.device.type == "cpu":
            return out.copy_(torch.as_tensor(x), non_blocking=True)
        return super().copy_to_gpu(x, out)


@mutant(killed_by=("pool",), by=("prop_pool_rows",))
def pool_host_out_skips_slot() -> Target:
    """``UvaBufferPool.copy_to_gpu(x, out=out)`` with a host ``out`` writes ``x`` into ``out`` directly: a list past
    the pool's integer range is written wrapped and a tuple is taken, where ``copy_to_uva`` refuses both."""
    return reference_target("pool_host_out_skips_slot", buffer_utils=_utils(UvaBufferPool=_HostOutDirect))


class _ContinuationsMerged(U.StagedWriteTensor):
    """A write starting where the previous one ended is appended to it ("one kernel program per run of writes"); the
    row is not compared."""

    def stage_write(self, index: Any, start: Any, x: Any) -> None:
        values = list(x)
        if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
            raise TypeError("x must hold numbers (int or float)")
        if values and self._staged_write_indices:
            begin = self._staged_write_cu_lens[-2] if len(self._staged_write_cu_lens) > 1 else 0
            if self._staged_write_starts[-1] + self._staged_write_cu_lens[-1] - begin == start:
                self._check(index, start, len(values))  # the write itself is in bounds
                self._staged_write_contents.extend(values)
                self._staged_write_cu_lens[-1] = len(self._staged_write_contents)
                self._staged_write_max_len = max(self._staged_write_max_len, self._staged_write_cu_lens[-1] - begin)
                return
        super().stage_write(index, start, values)


@mutant(killed_by=("staged-write",), by=("prop_staged_overlaps", "prop_staged_writes"))
def staged_continuations_merged() -> Target:
    """``stage_write`` appends a write that starts where the previous one ended to that write, whatever its row: its
    values land in the previous write's row and its own row is never written."""
    return reference_target("staged_continuations_merged", buffer_utils=_utils(StagedWriteTensor=_ContinuationsMerged))


class _CursorPerThread(U.UvaBufferPool):
    """The round-robin cursor kept per thread ("no race on a shared cursor"); the slots stay shared."""

    def __init__(self, size: Any, dtype: torch.dtype, max_concurrency: int | None = None) -> None:
        super().__init__(size, dtype, max_concurrency)
        self._cursors = threading.local()

    def copy_to_uva(self, x: Any) -> torch.Tensor:
        self._curr = getattr(self._cursors, "curr", 0)
        view = super().copy_to_uva(x)
        self._cursors.curr = self._curr
        return view


@mutant(killed_by=("pool",), by=("prop_pool_state",))
def pool_cursor_per_thread() -> Target:
    """``UvaBufferPool`` keeps its cursor per thread: a second thread's first step takes the slot the first thread's
    latest reader holds."""
    return reference_target("pool_cursor_per_thread", buffer_utils=_utils(UvaBufferPool=_CursorPerThread))


class _DepthSticks(U.UvaBufferPool):
    """The last depth given becomes the default of later pools ("size every pool like the engine's first")."""

    default = U.DEFAULT_MAX_CONCURRENCY

    def __init__(self, size: Any, dtype: torch.dtype, max_concurrency: int | None = None) -> None:
        if max_concurrency is None:
            max_concurrency = type(self).default
        super().__init__(size, dtype, max_concurrency)
        type(self).default = max_concurrency


@mutant(killed_by=("pool",), by=("prop_pool_state",))
def pool_depth_sticks() -> Target:
    """A ``UvaBufferPool`` built with ``max_concurrency`` makes it the depth of every later pool built without one:
    after a depth-1 pool, a default pool's reader is overwritten by the next step."""

    class Sticky(_DepthSticks):
        default = U.DEFAULT_MAX_CONCURRENCY  # a class of its own per target: one mutant run starts from the default

    return reference_target("pool_depth_sticks", buffer_utils=_utils(UvaBufferPool=Sticky))


def _fused_clearing_all() -> type:
    class ClearsAll(U.FusedStagedWriter):
        """Every tensor the writer has applied is cleared at each apply ("none carries writes into a later batch")."""

        def __init__(self, device: Any, max_writes: int) -> None:
            super().__init__(device, max_writes)
            self._known: list[Any] = []

        def apply(self, tensors: Any, output_ptrs: Any, output_strides: Any) -> None:
            super().apply(tensors, output_ptrs, output_strides)
            self._known += [t for t in tensors if all(t is not k for k in self._known)]
            for t in self._known:
                t.clear_staged_writes()

    return ClearsAll


@mutant(killed_by=("fused-writes",), by=("prop_fused_subsets",))
def fused_clears_all_known() -> Target:
    """``FusedStagedWriter.apply`` clears the staged writes of every tensor it ever applied, not only of those passed:
    a tensor left out of this apply loses what was staged into it since."""
    return reference_target("fused_clears_all_known", buffer_utils=_utils(FusedStagedWriter=_fused_clearing_all()))


def _fused_on_workers() -> type:
    class OnWorkers(U.FusedStagedWriter):
        """The writer keeps worker threads for its conversions, alive as long as it is."""

        def apply(self, tensors: Any, output_ptrs: Any, output_strides: Any) -> None:
            if not hasattr(self, "_workers"):
                self._workers = ThreadPoolExecutor(2, thread_name_prefix="fused-convert")
                self._workers.submit(lambda: None).result()  # the first worker starts
            super().apply(tensors, output_ptrs, output_strides)

        def __del__(self) -> None:
            workers = getattr(self, "_workers", None)
            if workers is not None:
                workers.shutdown(wait=False)

    return OnWorkers


@mutant(killed_by=("side-effects",), by=("prop_buffer_utils_side_effects",))
def fused_worker_threads() -> Target:
    """``FusedStagedWriter.apply`` starts worker threads of the writer's own at its first apply and leaves them
    running while the writer lives."""
    return reference_target("fused_worker_threads", buffer_utils=_utils(FusedStagedWriter=_fused_on_workers()))


class _GradOffApply(U.StagedWriteTensor):
    """``torch.set_grad_enabled(False)`` as a statement, meant as a ``with`` block."""

    def apply_write(self) -> None:
        torch.set_grad_enabled(False)
        super().apply_write()


@mutant(killed_by=("side-effects",), by=("prop_buffer_utils_side_effects",))
def staged_apply_grad_off() -> Target:
    """``StagedWriteTensor.apply_write`` switches grad mode off for the thread and leaves it off."""
    return reference_target("staged_apply_grad_off", buffer_utils=_utils(StagedWriteTensor=_GradOffApply))


class _ViewsMemoised(CpuGpuBuffer):
    """The ``.gpu[:n]`` view kept per ``n`` and handed to every caller of that ``n`` ("no view object per step")."""

    def copy_to_gpu(self, n: int | None = None) -> torch.Tensor:
        view = super().copy_to_gpu(n)
        if n is None or isinstance(n, bool) or not isinstance(n, int):
            return view
        memo: dict[int, torch.Tensor] = self.__dict__.setdefault("_views", {})
        return memo.setdefault(n, view)


@mutant(killed_by=("buffer",), by=("prop_buffer_copy_sizes",))
def buffer_row_views_memoised() -> Target:
    """``CpuGpuBuffer.copy_to_gpu(n)`` returns the same view object for every call with that ``n``: one caller's
    ``unsqueeze_`` of its result reshapes every later caller's."""
    return reference_target("buffer_row_views_memoised", buffer_cls=_ViewsMemoised)


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table", "prop_bad_input"))
def tensor_taken_as_device() -> Target:
    """A tensor given as ``device`` is taken for its device ("as ``Tensor.to(other)``"), where the reference refuses
    it with TypeError naming ``device``."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(device, torch.Tensor):
            device = device.device
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("tensor_taken_as_device", fn)


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table", "prop_bad_input"))
def legacy_order_swapped() -> Target:
    """A dtype given as ``device`` is taken for vLLM's old order ``(data, dtype, target_device)`` and swapped back
    with ``dtype``, where the reference refuses it with TypeError naming ``device``."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(device, torch.dtype):
            device, dtype = dtype, device
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("legacy_order_swapped", fn)


@mutant(killed_by=("values",), by=("prop_values_lazy_tensors",))
def neg_bit_kept_into_named_dtypes() -> Target:
    """A tensor with the negative bit is copied into staging of the target dtype as it is ("``copy_`` resolves the
    bit") except into float16 and bool: ``copy_`` negates after converting, and torch has no negation kernel for
    uint16-64 and float8, so the call raises NotImplementedError."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, torch.Tensor) and data.is_neg() and dtype not in (None, torch.float16, torch.bool):
            data = torch.empty(data.shape, dtype=dtype).copy_(data)
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("neg_bit_kept_into_named_dtypes", fn)


@mutant(killed_by=("values",), by=("prop_values_lazy_tensors",))
def range_check_reads_storage() -> Target:
    """An integer tensor narrowed to a smaller integer dtype is range-checked on its storage's values: a view with
    the negative bit is judged by the values it does not read (-2**31 stored as 2**31 refused for int32)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        target: torch.dtype | None = dtype if dtype is not None else (out.dtype if out is not None else None)
        narrowing = target is not None and not (target.is_floating_point or target.is_complex or target == torch.bool)
        if (
            target is not None
            and narrowing
            and isinstance(data, torch.Tensor)
            and data.is_neg()
            and target != data.dtype
        ):
            if not (data.is_floating_point() or data.is_complex()):
                stored = torch._neg_view(data).resolve_neg()
                info = torch.iinfo(target)
                if bool(((stored < info.min) | (stored > info.max)).any()):
                    raise ValueError(f"data holds values out of range for {target}")
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("range_check_reads_storage", fn)


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table", "prop_bad_input"))
def cpu_variant_swallows_keywords() -> Target:
    """The CPU-platform variant takes ``**kwargs`` ("so GPU call sites' ``non_blocking=`` pass"): a misspelt
    ``dtpye=`` is dropped without a word and the result has the data's own dtype."""

    def cpu(data: Any, device: Any = None, dtype: Any = None, out: Any = None, **_ignored: Any) -> torch.Tensor:
        return h2d_impl.async_tensor_h2d_cpu(data, device=device, dtype=dtype, out=out)

    return reference_target("cpu_variant_swallows_keywords", cpu_variant=cpu)


@mutant(killed_by=("values",), by=("prop_values_lazy_tensors",))
def lazy_out_refused() -> Target:
    """An ``out`` with the conjugate or negative bit is refused with TypeError ("resolve it first"), though torch's
    ``copy_`` writes such a view exactly."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(out, torch.Tensor) and (out.is_conj() or out.is_neg()):
            raise TypeError("out is a conjugate or negative view; pass a tensor of its own")
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("lazy_out_refused", fn)


class _FreezesHeap(CpuGpuBuffer):
    """``gc.freeze()`` at the end of the constructor ("long-lived buffers: keep the heap out of full collections")."""

    def __init__(self, *size: Any, **kwargs: Any) -> None:
        super().__init__(*size, **kwargs)
        gc.freeze()


@mutant(killed_by=("side-effects",), by=("prop_buffer_side_effects",))
def buffer_init_freezes_gc() -> Target:
    """``CpuGpuBuffer``'s constructor freezes every object the process holds (``gc.freeze()``, as vLLM does once at
    start-up): the collector never looks at them again, and each later buffer freezes again."""
    return reference_target("buffer_init_freezes_gc", buffer_cls=_FreezesHeap)
