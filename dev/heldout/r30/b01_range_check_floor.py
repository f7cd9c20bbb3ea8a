"""A float going into an integer dtype is range-checked after ``np.floor``, not ``np.trunc``.

The conversion itself still truncates toward zero (torch's ``copy_``), but the range check
rounds toward minus infinity: a negative float above ``min - 1`` is judged by the integer
below it. ``-0.5`` into uint8 (documented valid: it converts to 0) and ``-128.5`` into
int8 (converts to -128) are refused with ``ValueError``. A plausible slip: "the value that
lands is the integer part, i.e. ``floor``" (true only for non-negative values).
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.h2d_impl import h2d
from h2d_contracts.h2d_impl._host import _INTEGER_DTYPES, _NUMPY_FLOATS, _at, _first_index

from ._common import make_target
from ._patch import entry_points, rebind


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    """The reference's ``check_representable`` with ``np.floor`` in place of ``np.trunc``."""
    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype == torch.bool:
        if source.is_complex() and not dtype.is_complex and dtype is not torch.bool:
            raise TypeError(
                f"data is complex ({source.dtype}) but dtype={dtype} is not: the imaginary part would be lost"
            )
        return
    if source.numel() == 0:
        return
    if source.is_complex():
        raise TypeError(f"data is complex ({source.dtype}) but dtype={dtype} is an integer dtype")
    info = torch.iinfo(dtype)
    if source.is_floating_point():
        if source.dtype in _NUMPY_FLOATS and not source.is_neg():
            wide_np = source.numpy().astype(np.float64)
        else:
            wide_np = source.to(torch.float64).numpy()
        wide = torch.from_numpy(wide_np)
        bad_np = ~np.isfinite(wide_np)
        if bad_np.any():
            idx = _first_index(torch.from_numpy(np.array(bad_np, dtype=np.bool_, ndmin=0, copy=True)))
            raise ValueError(f"{_at(idx)} = {wide[idx].item()} cannot be converted to integer dtype {dtype}")
        whole = np.floor(wide_np)  # BUG: the conversion truncates toward zero; floor judges -0.5 as -1
        bad_np = (whole < float(info.min)) | (whole > float(info.max)) | (whole >= float(info.max + 1))
    else:
        sinfo = torch.iinfo(source.dtype)
        if sinfo.min >= info.min and sinfo.max <= info.max:
            return
        values = source.numpy()
        bad_np = (values < info.min) | (values > info.max)
        wide = None
    if np.any(bad_np):
        bad = torch.from_numpy(np.array(bad_np, dtype=np.bool_, ndmin=0, copy=True))
        if wide is None:
            wide = (
                source.to(torch.int64)
                if source.dtype != getattr(torch, "uint64", None)
                else torch.from_numpy(values.astype(np.float64))
            )
        idx = _first_index(bad)
        raise ValueError(f"{_at(idx)} = {wide[idx].item()} is out of range for {dtype} [{info.min}, {info.max}]")


def target():
    fn, cpu = entry_points(prepare=rebind(h2d._prepare, check_representable=check_representable))
    return make_target("b01-range-check-floor", fn=fn, cpu_variant=cpu)
