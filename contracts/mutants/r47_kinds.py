"""Mutants for the kinds the outside round r47 found missing on the CPU (the contract checks added for them must kill these).

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

import decimal
from collections.abc import Iterable, Sequence
from typing import Any

import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table",))
def decimal_after_number_misreported() -> Target:
    """A list whose scan of object leaves stops at the first accepted number: a ``Decimal`` after a float or an int is
    never seen as one, and the list fails later as "integers outside the int64/uint64 range" (ValueError), where the
    reference raises TypeError naming the Decimal element."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if (
            isinstance(data, list)
            and data
            and isinstance(data[0], (int, float))
            and any(isinstance(v, decimal.Decimal) for v in data)
        ):
            raise ValueError("data holds integers outside the int64/uint64 range")
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("decimal_after_number_misreported", fn)


class _CoercedIndexStaged(U.StagedWriteTensor):
    """``stage_write`` that coerces its row and start with ``int()`` ("accept numpy and float indices")."""

    def stage_write(self, index: Any, start: Any, x: Iterable[int] | Iterable[float]) -> None:
        super().stage_write(int(index), int(start), x)


@mutant(killed_by=("staged-write",), by=("prop_staged_far_past",))
def staged_index_coerced() -> Target:
    """``StagedWriteTensor.stage_write`` coerces ``index`` and ``start`` with ``int()``: a start of 1.5 is staged at
    column 1 instead of being refused with TypeError naming it."""
    return reference_target("staged_index_coerced", buffer_utils=_utils(StagedWriteTensor=_CoercedIndexStaged))


class _UncheckedSizeStaged(U.StagedWriteTensor):
    """A constructor that hands a tuple or list ``size`` to torch unchecked ("torch validates shapes anyway")."""

    def __init__(self, size: int | Sequence[int], dtype: torch.dtype, device: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(size, (tuple, list)):
            torch.zeros(tuple(size), dtype=dtype)  # torch's own check: RuntimeError for a negative dimension
        super().__init__(size, dtype, device, *args, **kwargs)


@mutant(killed_by=("staged-write",), by=("prop_staged_dtypes",))
def staged_size_unchecked() -> Target:
    """``StagedWriteTensor((2, -1), ...)`` reaches ``torch.zeros`` unchecked: torch's RuntimeError naming no argument,
    where the reference raises ValueError naming ``size``."""
    return reference_target("staged_size_unchecked", buffer_utils=_utils(StagedWriteTensor=_UncheckedSizeStaged))


class _BoolBytesNumpy(h2d_impl.CpuGpuBuffer):
    """A ``CpuGpuBuffer`` whose bool ``.np`` is a uint8 view of ``.cpu`` ("numpy bools are bytes anyway")."""

    def __init__(self, *size: int, **kwargs: Any) -> None:
        super().__init__(*size, **kwargs)
        if self._np is not None and self.cpu.dtype is torch.bool:
            self._np = self.cpu.numpy().view("uint8")


@mutant(killed_by=("buffer",), by=("prop_buffer_spellings",))
def buffer_bool_numpy_as_bytes() -> Target:
    """A bool buffer's ``.np`` is a uint8 view of ``.cpu``: writing 2 through it puts a bool byte other than 0 and 1
    into ``.cpu`` (and from there to the device)."""
    return reference_target("buffer_bool_numpy_as_bytes", buffer_cls=_BoolBytesNumpy)


class _FloatValuesStaged(U.StagedWriteTensor):
    """``stage_write`` that normalises its values with ``float()`` ("one Python type for the staged list")."""

    def stage_write(self, index: Any, start: Any, x: Iterable[int] | Iterable[float]) -> None:
        values = list(x)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            values = [float(v) for v in values]
        super().stage_write(index, start, values)


@mutant(killed_by=("staged-write",), by=("prop_staged_overlaps",))
def staged_values_through_float() -> Target:
    """``StagedWriteTensor.stage_write`` passes its values through ``float()``: an int64 ``2**53 + 1`` is applied as
    ``2**53``."""
    return reference_target("staged_values_through_float", buffer_utils=_utils(StagedWriteTensor=_FloatValuesStaged))


@mutant(killed_by=("side-effects",), by=("prop_side_effects_table",))
def copy_threads_reset_to_cores() -> Target:
    """A large ndarray's conversion pins torch to one thread for its host copy, then "restores" ``os.cpu_count()``
    threads rather than the caller's count: an engine worker that set one thread is left with one per core."""
    import os

    import numpy as np

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if not (isinstance(data, np.ndarray) and data.size >= 1 << 15):
            return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
        torch.set_num_threads(1)
        try:
            return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
        finally:
            torch.set_num_threads(os.cpu_count() or 1)

    return reference_target("copy_threads_reset_to_cores", fn)


@mutant(killed_by=("side-effects",), by=("prop_side_effects_table",))
def refusal_logged_through_root() -> Target:
    """A refusal is logged with the module-level ``logging.warning(...)`` before it is raised: in a process with no
    logging configured that runs ``basicConfig``, adding a handler to the root logger (text on stderr for good)."""
    import logging

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        try:
            return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)
        except ValueError as exc:
            logging.warning("h2d: refusing a call: %s", exc)
            raise

    return reference_target("refusal_logged_through_root", fn)
