"""Mutants for the kinds the outside round r56 found missing on the CPU (the kit at d48a2f5).

Each is the reference with one realistic change of the kind, written apart from the round's own bug.
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
from .buffer_utils import _utils


class _SortedPositions(U.StagedWriteTensor):
    """Writes to distinct elements go in as one ``index_copy_`` at their sorted positions ("coalesced stores"); the
    values are not put in the same order."""

    def apply_write(self) -> None:
        if not self._staged_write_indices:
            return
        positions, contents = U._converted(self)
        if len(np.unique(positions)) == len(positions):
            where = h2d_impl.async_tensor_h2d(np.sort(positions), device=self.gpu.device)
            self.gpu.view(-1).index_copy_(0, where, contents)
        else:
            U._write(self.gpu, positions, contents)
        self.clear_staged_writes()


@mutant(killed_by=("staged-write",), by=("prop_staged_overlaps", "prop_staged_writes"))
def staged_positions_sorted() -> Target:
    """``apply_write`` writes distinct elements at their positions sorted, the values left in staging order: writes
    staged downward (Model Runner V2's ``free_indices.pop()`` rows) land reversed."""
    return reference_target("staged_positions_sorted", buffer_utils=_utils(StagedWriteTensor=_SortedPositions))


#: The slot rows the capped pool grows to at most (64 Ki: "a slot is pinned memory; bound it").
_SLOT_CAP = 1 << 16


class _SlotsCapped(U.UvaBufferPool):
    """Slots grow to the next power of two rows, clamped at 64 Ki rows; a longer step is then written past the slot."""

    def __init__(self, size: Any, dtype: torch.dtype, max_concurrency: int | None = None) -> None:
        super().__init__(size, dtype, max_concurrency)
        grow = self._buffer_cls

        def capped(shape: tuple[int, ...], dtype: torch.dtype) -> Any:
            return grow((min(shape[0], _SLOT_CAP), *shape[1:]), dtype)

        self._buffer_cls = capped  # type: ignore[assignment]


@mutant(killed_by=("pool",), by=("prop_pool_long_steps",))
def pool_slots_capped() -> Target:
    """``UvaBufferPool`` grows a slot to at most 65,536 rows: a long prefill's step of 65,537 rows fails inside the
    copy into the slot (a shape error naming no argument)."""
    return reference_target("pool_slots_capped", buffer_utils=_utils(UvaBufferPool=_SlotsCapped))


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table", "prop_bad_input"))
def object_numbers_converted() -> Target:
    """An object ndarray whose elements are all numbers is converted first (``np.array(data.tolist())``: "a pandas
    nullable column"), where the reference refuses every object array with TypeError naming ``data``."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, np.ndarray) and data.dtype == object:
            leaves = data.ravel().tolist()
            if leaves and all(isinstance(v, (int, float)) for v in leaves):
                data = np.array(data.tolist())
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("object_numbers_converted", fn)


@mutant(killed_by=("side-effects",), by=("prop_side_effects_table", "prop_side_effects"))
def large_copy_resets_numpy_errors() -> Target:
    """After an ndarray of more than 32,768 elements, numpy's error state is set to its defaults ("put back what the
    cast's ``seterr`` changed") instead of the state the call found: a caller's ``np.seterr(all="raise")`` is lost."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        try:
            return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
        finally:
            if isinstance(data, np.ndarray) and data.size > 32_768:
                np.seterr(divide="warn", over="warn", under="ignore", invalid="warn")  # numpy's documented defaults

    return reference_target("large_copy_resets_numpy_errors", fn)


class _WithNumpyNoneFalse(CpuGpuBuffer):
    """``with_numpy=None`` taken as False ("falsy, as vLLM's ``if with_numpy:``")."""

    def __init__(self, *size: Any, with_numpy: Any = True, **kwargs: Any) -> None:
        super().__init__(*size, with_numpy=False if with_numpy is None else with_numpy, **kwargs)


@mutant(killed_by=("buffer",), by=("prop_buffer_bad_args",))
def buffer_with_numpy_none_false() -> Target:
    """``CpuGpuBuffer(..., with_numpy=None)`` builds a buffer without ``.np``, where the reference refuses it with
    TypeError naming ``with_numpy``."""
    return reference_target("buffer_with_numpy_none_false", buffer_cls=_WithNumpyNoneFalse)
