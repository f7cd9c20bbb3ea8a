"""Mutants for the kinds the outside round r38 found missing (the contract checks added for them must kill these).

Each is the reference with one realistic change of the kind: a result made outside the
caller's inference mode, an ``out is data`` exemption widened to the same address, an ``out``
refusal that names ``dtype``, a buffer size past int64 escaping as a bare ``TypeError``, a
full copy returning a view instead of ``.gpu``, a staged tensor taking only tuples as shapes,
a pool copying tensors through numpy, ``len(x)`` read before ``x`` is listed, and a staged
write keeping the caller's numpy indices.
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


@mutant(killed_by=("values",), by=("prop_values",))
def result_made_outside_inference_mode() -> Target:
    """Results are allocated with inference mode switched off: under the caller's inference_mode a normal tensor."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if out is None and torch.is_inference_mode_enabled():
            with torch.inference_mode(False):
                return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype).clone()
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("result_made_outside_inference_mode", fn)


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table", "prop_bad_input"))
def out_same_address_as_data_exempt() -> Target:
    """The ``out is data`` exemption widened to "out and data start at the same address": other views of it pass."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if (
            isinstance(out, torch.Tensor)
            and isinstance(data, torch.Tensor)
            and out is not data
            and out.numel()
            and data.numel()
            and out.data_ptr() == data.data_ptr()
        ):
            values = data.detach().clone()
            return out.copy_(values.reshape(out.shape) if values.numel() == out.numel() else values)
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("out_same_address_as_data_exempt", fn)


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table", "prop_bad_input"))
def out_dtype_refusal_names_dtype() -> Target:
    """An ``out`` of an unsupported dtype is refused with a message that names ``dtype``, never ``out``."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(out, torch.Tensor) and out.dtype is torch.complex32:
            raise TypeError(f"dtype={out.dtype} is not supported")
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("out_dtype_refusal_names_dtype", fn)


@mutant(killed_by=("buffer",), by=("prop_buffer_bad_args",))
def buffer_size_past_int64_typeerror() -> Target:
    """A buffer size past int64 escapes as torch's ``TypeError`` (only allocation RuntimeErrors are translated)."""

    class Buffer(h2d_impl.CpuGpuBuffer):
        def __init__(self, *size: Any, **kwargs: Any) -> None:
            if any(isinstance(s, int) and not isinstance(s, bool) and s >= 1 << 63 for s in size):
                torch.zeros(*size, dtype=torch.int8)  # raises torch's own TypeError, naming no argument
            super().__init__(*size, **kwargs)

    return reference_target("buffer_size_past_int64_typeerror", buffer_cls=Buffer)


@mutant(killed_by=("buffer",), by=("prop_buffer_copy",))
def buffer_full_copy_returns_view() -> Target:
    """``copy_to_gpu()`` of every row returns ``.gpu[:capacity]`` (one branch for both cases), a view, not ``.gpu``."""

    class Buffer(h2d_impl.CpuGpuBuffer):
        def copy_to_gpu(self, n: Any = None) -> torch.Tensor:
            if n is None:
                return super().copy_to_gpu(self.gpu.shape[0])
            return super().copy_to_gpu(n)

    return reference_target("buffer_full_copy_returns_view", buffer_cls=Buffer)


@mutant(killed_by=("staged-write",), by=("prop_staged_writes",))
def staged_size_tuple_only() -> Target:
    """A StagedWriteTensor reads only a tuple as a shape: a list ``[rows, columns]`` is refused."""

    class Staged(U.StagedWriteTensor):
        def __init__(self, size: Any, *args: Any, **kwargs: Any) -> None:
            if isinstance(size, list):
                raise TypeError(f"size must be an int or a tuple of ints, got {size!r}")
            super().__init__(size, *args, **kwargs)

    return reference_target("staged_size_tuple_only", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("pool",), by=("prop_pool_steps",))
def pool_tensor_through_numpy() -> Target:
    """The pool copies tensors through numpy (``x.numpy()``): a bfloat16 tensor is refused by numpy."""

    class Pool(U.UvaBufferPool):
        def copy_to_uva(self, x: Any) -> torch.Tensor:
            return super().copy_to_uva(x.numpy() if isinstance(x, torch.Tensor) else x)

    return reference_target("pool_tensor_through_numpy", buffer_utils=_utils(UvaBufferPool=Pool))


@mutant(killed_by=("staged-write",), by=("prop_staged_writes",))
def staged_len_before_list() -> Target:
    """stage_write reads ``len(x)`` before listing ``x``: a generator of values is refused."""

    class Staged(U.StagedWriteTensor):
        def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
            len(x)  # type: ignore[arg-type]  # raises TypeError for a generator
            super().stage_write(index, start, x)

    return reference_target("staged_len_before_list", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("staged-write",), by=("prop_staged_writes",))
def staged_keeps_numpy_index() -> Target:
    """stage_write stages the caller's numpy index and start as given: uint64 with int64 makes float positions."""

    class Staged(U.StagedWriteTensor):
        def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
            super().stage_write(index, start, x)
            if self._staged_write_indices and isinstance(index, np.integer):
                self._staged_write_indices[-1] = index
                self._staged_write_starts[-1] = start

    return reference_target("staged_keeps_numpy_index", buffer_utils=_utils(StagedWriteTensor=Staged))


@mutant(killed_by=("values",), by=("prop_values",))
def keyword_only_signature() -> Target:
    """``device``, ``dtype`` and ``out`` made keyword-only (a ``*`` added): vLLM's call sites pass the device by position."""

    def fn(data: Any, *, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("keyword_only_signature", fn)


@mutant(killed_by=("pool",), by=("prop_pool_steps",))
def pool_rotates_before_validation() -> Target:
    """The round-robin cursor advances before ``x`` is checked: a refused call takes a slot (vLLM's order)."""

    class Pool(U.UvaBufferPool):
        def copy_to_uva(self, x: Any) -> torch.Tensor:
            before = self._curr
            try:
                return super().copy_to_uva(x)
            except (TypeError, ValueError):
                self._curr = (before + 1) % self.max_concurrency  # the slot is taken all the same
                raise

    return reference_target("pool_rotates_before_validation", buffer_utils=_utils(UvaBufferPool=Pool))
