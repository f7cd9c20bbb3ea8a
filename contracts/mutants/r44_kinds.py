"""Mutants for the kinds the outside round r44 found missing (the contract checks added for them must kill these).

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import mutant, reference_target


@mutant(killed_by=("side-effects",), by=("prop_side_effects_table",))
def fill_uninitialized_memory_switched_off() -> Target:
    """Every call switches off torch's process-wide ``fill_uninitialized_memory`` ("our own ``torch.empty`` is
    overwritten at once"), never restored: under deterministic algorithms the caller's later allocations are no
    longer filled."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        setattr(torch.utils.deterministic, "fill_uninitialized_memory", False)  # noqa: B010 - a property the stubs lack
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("fill_uninitialized_memory_switched_off", fn)


@mutant(killed_by=("side-effects",), by=("prop_side_effects_table",))
def print_options_set_on_refusal() -> Target:
    """A refused call shortens torch's print options for its message's preview (``torch.set_printoptions(threshold=8,
    edgeitems=2)``), never restored: every tensor the process prints later is summarised."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        try:
            return R.async_tensor_h2d(data, device, dtype, out)
        except (TypeError, ValueError):
            torch.set_printoptions(threshold=8, edgeitems=2)  # type: ignore[no-untyped-call]
            raise

    return reference_target("print_options_set_on_refusal", fn)


#: The mutant's threshold: past it the range check is skipped ("a full pass over bulk data").
_RANGE_CHECK_MAX = 1 << 16


@mutant(killed_by=("bad-input",), by=("prop_bad_input_value_table",))
def range_check_small_payloads_only() -> Target:
    """Arrays and tensors of more than 65,536 elements into an integer dtype skip the range check (a full pass over
    bulk data): NaN, infinities and out-of-range values are converted by ``copy_`` and wrap silently."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        big = isinstance(data, (np.ndarray, torch.Tensor)) and data.size and np.size(data) > _RANGE_CHECK_MAX
        if big and out is None and isinstance(dtype, torch.dtype) and not dtype.is_floating_point:
            source = torch.from_numpy(np.ascontiguousarray(data)) if isinstance(data, np.ndarray) else data
            if not source.is_complex():
                with np.errstate(all="ignore"):
                    return R.async_tensor_h2d(source.to(dtype), device, dtype)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("range_check_small_payloads_only", fn)


#: The second mutant's gate: 4 MiB of payload ("the range check's full pass costs more than the copy past it").
_RANGE_CHECK_MAX_BYTES = 4 << 20


@mutant(killed_by=("bad-input",), by=("prop_bad_input_value_table",))
def range_check_below_4mib_only() -> Target:
    """Arrays and tensors of more than 4 MiB skip the range check into an integer dtype (the gate a reviewer would
    set by bytes, past the value table's 70,000-element rows): NaN, infinities and out-of-range values wrap silently.
    Killed only by the table's rows of 2**21 + 3 elements."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        nbytes = (
            data.nbytes
            if isinstance(data, np.ndarray)
            else data.numel() * data.element_size()
            if isinstance(data, torch.Tensor)
            else 0
        )
        if (
            nbytes > _RANGE_CHECK_MAX_BYTES
            and out is None
            and isinstance(dtype, torch.dtype)
            and not dtype.is_floating_point
        ):
            source = torch.from_numpy(np.ascontiguousarray(data)) if isinstance(data, np.ndarray) else data
            if not source.is_complex():
                with np.errstate(all="ignore"):
                    return R.async_tensor_h2d(source.to(dtype), device, dtype)
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("range_check_below_4mib_only", fn)
