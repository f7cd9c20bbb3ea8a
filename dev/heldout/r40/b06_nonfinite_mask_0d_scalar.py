"""b06 (CPU-visible): the NaN/inf refusal of a 0-d float source trips over a numpy scalar.

Where: ``h2d_impl/_host.py``, ``check_representable`` (float -> integer branch, the
non-finite refusal).

Change: ``torch.from_numpy(np.array(bad_np, dtype=np.bool_, ndmin=0, copy=True))`` ->
``torch.from_numpy(bad_np)`` ("``bad_np`` already is a bool array: drop the copy").

Why plausible: for every 1-D or N-D source ``~np.isfinite(wide_np)`` is a fresh bool
array and the copy is waste. For a 0-d source numpy's ufuncs return a scalar
(``numpy.bool``), not an array, and ``torch.from_numpy`` refuses scalars with a
``TypeError`` (the reference's comment "0-d: numpy gives a scalar" is on the line).

Promise broken: ``check_representable``: "float -> integer: ... refused with ValueError
only when it is NaN or infinite ..."; README bad-input: ``nan-to-int`` and ``inf-to-int``
"raise ValueError ... with a message naming the argument", carried "as a list, an
ndarray, a tensor and a scalar".

Smallest input: ``async_tensor_h2d(float('nan'), dtype=torch.int32, device='cpu')``
(also ``np.float32('inf')``, ``np.array(np.nan)``, ``torch.tensor(float('nan'))``).
Reference: ``ValueError: data = nan cannot be converted to integer dtype torch.int32``.
Bug: ``TypeError: expected np.ndarray (got numpy.bool)`` (wrong type, argument not named).
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype == torch.bool:  # noqa: F821
        if source.is_complex() and not dtype.is_complex and dtype is not torch.bool:
            raise TypeError(
                f"data is complex ({source.dtype}) but dtype={dtype} is not: the imaginary part would be lost"
            )
        return
    if source.is_complex():
        raise TypeError(f"data is complex ({source.dtype}) but dtype={dtype} is an integer dtype")
    if source.numel() == 0:
        return
    info = torch.iinfo(dtype)
    if source.is_floating_point():
        if source.dtype in _NUMPY_FLOATS and not source.is_neg():  # noqa: F821
            wide_np = source.numpy().astype(np.float64)
        else:
            wide_np = source.to(torch.float64).numpy()
        wide = torch.from_numpy(wide_np)
        bad_np = ~np.isfinite(wide_np)
        if bad_np.any():
            idx = _first_index(torch.from_numpy(bad_np))  # noqa: F821  BUG: a 0-d source gives a numpy scalar
            raise ValueError(f"{_at(idx)} = {wide[idx].item()} cannot be converted to integer dtype {dtype}")  # noqa: F821
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
        idx = _first_index(bad)  # noqa: F821
        raise ValueError(f"{_at(idx)} = {wide[idx].item()} is out of range for {dtype} [{info.min}, {info.max}]")  # noqa: F821


def _fork() -> Fork:
    return fork("b06", _host={"check_representable": check_representable})


def target() -> Target:
    return fork_target_full("b06_nonfinite_mask_0d_scalar", _fork())
