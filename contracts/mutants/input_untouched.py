"""Mutants that break the input-untouched contract: each the reference with one realistic bug."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import mutant, reference_target


@mutant(killed_by=("input-untouched",))
def byteswap_in_place() -> Target:
    """a non-native byte order (``>i4``) is fixed in place on the caller's array (``byteswap(inplace=True)``): the caller's values turn to garbage."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if (
            isinstance(data, np.ndarray)
            and not data.dtype.isnative
            and data.flags.writeable
            and data.dtype.itemsize > 1
        ):
            data = data.byteswap(inplace=True).view(data.dtype.newbyteorder("="))
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("byteswap_in_place", fn)


@mutant(killed_by=("input-untouched",))
def int_list_padded_in_place() -> Target:
    """a 1-D int list is padded to a multiple of 8 in place (``data += [0] * pad``) "for alignment": the caller's list grows."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if type(data) is list and data and all(type(v) is int for v in data) and len(data) % 8 and out is None:
            n = len(data)
            data += [0] * (-n % 8)
            return R.async_tensor_h2d(data, device, dtype)[:n]
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("int_list_padded_in_place", fn)
