"""The float range check calls ``.numpy()`` on negative-bit views: a bare ``RuntimeError``.

``check_representable`` reads a float16/32/64 source through numpy, and the author dropped
the ``not source.is_neg()`` guard as noise. A tensor with torch's lazy negation bit (the
imaginary part of a conjugated complex tensor, ``torch.tensor([1-2j]).conj().imag``, or
``torch._neg_view``) raises ``RuntimeError: Can't call numpy() on Tensor that has negative
bit set`` when it goes into an integer dtype: a valid call fails with an undocumented
exception. The reference reads such views through ``Tensor.to(float64)``.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.h2d_impl import h2d
from h2d_contracts.h2d_impl._host import _INTEGER_DTYPES, _NUMPY_FLOATS, _at, _first_index

from ._common import make_target
from ._patch import entry_points, rebind


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    """The reference's ``check_representable`` without the neg-view guard of the numpy route."""
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
        if source.dtype in _NUMPY_FLOATS:  # BUG: ``and not source.is_neg()`` dropped
            wide_np = source.numpy().astype(np.float64)
        else:
            wide_np = source.to(torch.float64).numpy()
        wide = torch.from_numpy(wide_np)
        bad_np = ~np.isfinite(wide_np)
        if bad_np.any():
            idx = _first_index(torch.from_numpy(np.array(bad_np, dtype=np.bool_, ndmin=0, copy=True)))
            raise ValueError(f"{_at(idx)} = {wide[idx].item()} cannot be converted to integer dtype {dtype}")
        whole = np.trunc(wide_np)
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
    return make_target("b13-neg-view-range-check", fn=fn, cpu_variant=cpu)
