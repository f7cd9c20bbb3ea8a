"""Mutants for the kinds the outside round r51 found missing on the CPU (the contract checks added for them must kill these).

Each is the reference with one realistic change of the kind.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch

from h2d_contracts import h2d_impl
from h2d_contracts.h2d_impl import buffer_utils as U

from ..targets import Target
from .base import mutant, reference_target
from .buffer_utils import _utils, stage_unchecked


@mutant(killed_by=("values",), by=("prop_values_lazy_tensors",))
def negative_view_copied_into_float16() -> Target:
    """A converting copy takes a view with the negative bit as it is ("copy_ reads every view"): torch's ``copy_``
    drops the negation into float16, so ``torch._neg_view([1.5])`` into float16 comes back 1.5."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        want = dtype if dtype is not None else out.dtype if out is not None else None
        if isinstance(data, torch.Tensor) and data.is_neg() and want is torch.float16:
            data = torch.empty(data.shape, dtype=torch.float16).copy_(data)
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("negative_view_copied_into_float16", fn)


@mutant(killed_by=("values",), by=("prop_values_lazy_tensors",))
def zerotensor_through_numpy() -> Target:
    """A large host tensor is read through numpy ("one memcpy"): a ZeroTensor, which has no storage, raises."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, torch.Tensor) and data.numel() > 1 << 15 and not data.is_neg() and not data.is_conj():
            data = torch.from_numpy(data.numpy().copy())
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("zerotensor_through_numpy", fn)


@mutant(killed_by=("values",), by=("prop_values_int_edges",))
def numpy_scalar_as_tensor() -> Target:
    """A numpy scalar is made a tensor by ``torch.as_tensor`` ("a scalar needs no array"): ``np.uint64(2**64 - 1)``
    raises TypeError (torch takes no uint64 past int64 from a Python-level scalar)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: Any = None) -> torch.Tensor:
        if isinstance(data, np.generic) and isinstance(data, np.unsignedinteger):
            data = torch.as_tensor(int(data))
        return h2d_impl.async_tensor_h2d(data, device=device, dtype=dtype, out=out)

    return reference_target("numpy_scalar_as_tensor", fn)


class _ZeroWidthAsOne(U.StagedWriteTensor):
    """Rows of no elements given a length of 1 ("a row has at least one element")."""

    def __init__(self, size: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(size, *args, **kwargs)
        self._row_len = self._row_len or 1


@mutant(killed_by=("staged-write",), by=("prop_staged_edges",))
def staged_zero_width_rows_as_one() -> Target:
    """A ``StagedWriteTensor`` of size (2, 0) takes a write of one value into a row (its row length counted as 1): the
    write is staged, and the apply fails on it every time after."""
    return reference_target("staged_zero_width_rows_as_one", buffer_utils=_utils(StagedWriteTensor=_ZeroWidthAsOne))


class _RealValuesStaged(U.StagedWriteTensor):
    """Values checked by ``numbers.Real`` and a bare number taken as one value."""

    def stage_write(self, index: Any, start: Any, x: Any) -> None:
        values = [x] if isinstance(x, (int, float)) and not isinstance(x, bool) else list(x)
        if values and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
            stage_unchecked(self, index, start, values)
            return
        super().stage_write(index, start, values)


@mutant(killed_by=("staged-write",), by=("prop_staged_bad_values",))
def staged_values_by_numbers_real() -> Target:
    """``stage_write`` tests its values by ``numbers.Real`` and wraps a bare number ("one value is fine"): a
    ``Fraction`` is staged and every later apply fails, and ``stage_write(0, 1, 5)`` writes 5."""
    return reference_target("staged_values_by_numbers_real", buffer_utils=_utils(StagedWriteTensor=_RealValuesStaged))


def _int_sized(cls: Any) -> Any:
    """``cls`` whose single size must be a Python int (a numpy integer is iterated as a sequence, and refused)."""

    class IntSized(cls):  # type: ignore[misc]
        def __init__(self, size: Any, *args: Any, **kwargs: Any) -> None:
            if isinstance(size, np.generic):
                raise TypeError(f"size must be an int or a sequence of ints, got {size!r}")
            super().__init__(size, *args, **kwargs)

    return IntSized


@mutant(killed_by=("uva", "staged-write"), by=("prop_uva_rows", "prop_staged_edges"))
def sizes_refuse_numpy_ints() -> Target:
    """Every Model Runner V2 class tests a single size by ``isinstance(size, int)``: ``UvaBuffer(np.int64(6), ...)``
    and ``StagedWriteTensor(np.int64(3), ...)`` are refused, where the reference takes any integer."""
    swapped = {n: _int_sized(getattr(U, n)) for n in ("UvaBuffer", "NonUvaBuffer", "UvaBufferPool", "UvaBackedTensor")}
    return reference_target(
        "sizes_refuse_numpy_ints", buffer_utils=_utils(StagedWriteTensor=_int_sized(U.StagedWriteTensor), **swapped)
    )
