"""Mutants for the kinds the outside round r39 found missing (the contract checks added for them must kill these).

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils


@mutant(killed_by=("uva", "pool"), by=("prop_uva_in_contexts", "prop_pool_in_contexts"))
def nonuva_twin_on_default_device() -> Target:
    """``NonUvaBuffer``'s twin is made without naming a device: under a default device (``with torch.device(...)``)
    the pool's slots and every reader live there."""

    class NonUva(U.NonUvaBuffer):
        def __init__(self, size: int | Sequence[int], dtype: torch.dtype, device: Any = None) -> None:
            super().__init__(size, dtype, device)
            if device is None:
                self._uva = torch.zeros(tuple(self.cpu.shape), dtype=self.cpu.dtype)  # the default device's

    class Pool(U.UvaBufferPool):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            if not isinstance(self._uva_bufs[0], U.UvaBuffer):
                self._buffer_cls = NonUva
                self._uva_bufs = [NonUva(tuple(b.cpu.shape), b.cpu.dtype) for b in self._uva_bufs]

    return reference_target(
        "nonuva_twin_on_default_device", buffer_utils=_utils(NonUvaBuffer=NonUva, UvaBufferPool=Pool)
    )


@mutant(killed_by=("bad-input",), by=("prop_bad_input_value_table", "prop_bad_input"))
def huge_int_guard_skipped_by_nan() -> Target:
    """The guard for ints past int64 in a list reads the list's maximum: a NaN in the list makes it NaN, the guard is
    skipped, and the huge int goes through as a float."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, list):
            leaves = np.asarray(data, dtype=object)
            flat = leaves.ravel().tolist() if leaves.dtype == object else []
            numbers_only = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in flat)
            if numbers_only and any(isinstance(v, float) and v != v for v in flat):  # abs(arr).max() is NaN
                values = np.array(flat, dtype=np.float64).reshape(leaves.shape)  # the guard skipped: floats
                data = values.astype(np.float32) if dtype is None and out is None else values
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("huge_int_guard_skipped_by_nan", fn)


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table", "prop_bad_input"))
def out_layout_checked_with_is_sparse() -> Target:
    """``out``'s layout is checked with ``out.is_sparse`` (COO only): a CSR, CSC, BSR or mkldnn ``out`` reaches torch's
    own ``copy_``, which raises a RuntimeError naming no argument."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(out, torch.Tensor) and out.layout is not torch.strided and not out.is_sparse:
            return out.copy_(torch.as_tensor(data, dtype=out.dtype))
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("out_layout_checked_with_is_sparse", fn)


@mutant(killed_by=("side-effects",), by=("prop_side_effects",))
def gc_reenabled_after_conversion() -> Target:
    """The collector is switched off around the list conversion and on again after it: a process that had it off (an
    engine's step loop) has it on after one call."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        gc.disable()
        try:
            return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
        finally:
            gc.enable()

    return reference_target("gc_reenabled_after_conversion", fn)


@mutant(killed_by=("staged-write",), by=("prop_staged_writes",))
def staged_write_checks_values_last() -> Target:
    """``stage_write`` records the row and start before it checks the values: a write refused for a value that is not
    a number leaves its row and start staged without values, and the next ``apply_write`` fails."""

    class Staged(U.StagedWriteTensor):
        def stage_write(self, index: int, start: int, x: Any) -> None:
            values = list(x)
            if values and any(
                isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values
            ):
                index, start = self._check(index, start, len(values))
                self._staged_write_indices.append(index)  # recorded before the values are found bad
                self._staged_write_starts.append(start)
            super().stage_write(index, start, values)

    return reference_target("staged_write_checks_values_last", buffer_utils=_utils(StagedWriteTensor=Staged))
