"""b02 (CPU-visible): the integer range check compares in torch instead of numpy.

Where: ``h2d_impl/_host.py``, ``check_representable`` (integer -> narrower integer branch).

Change: ``bad_np = (values < info.min) | (values > info.max)`` ->
``bad_np = ((source < info.min) | (source > info.max)).numpy()``.

Why plausible: one fused torch comparison instead of two numpy temporaries, and it reads
as the same thing. The reference's comment ("torch has no comparison kernels for
uint16/32/64 on the CPU") is easy to miss: torch 2.13 has ``uint16``/``uint32``/``uint64``
tensors but no ``lt``/``gt`` kernels for them.

Promise broken: docs/reference.md and README (values, dtype matrix): "every dtype ...
uint16/32/64 ... built and copied like any other"; ``check_representable``: "integer ->
narrower integer: every value must lie in the target's range, else ValueError"; README
errors: never a bare ``RuntimeError``/``NotImplementedError`` for a valid call.

Smallest input: ``async_tensor_h2d(torch.tensor([1], dtype=torch.uint32), dtype=torch.int32, device='cpu')``.
Reference: ``tensor([1], dtype=torch.int32)``.
Bug: ``NotImplementedError: "lt_cpu" not implemented for 'UInt32'`` (any uint16/32/64
source into a narrower or signed integer dtype, from a tensor, an ndarray or a list of
``np.uint32`` scalars; an out-of-range one gets the same error instead of ``ValueError``).
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
            idx = _first_index(torch.from_numpy(np.array(bad_np, dtype=np.bool_, ndmin=0, copy=True)))  # noqa: F821
            raise ValueError(f"{_at(idx)} = {wide[idx].item()} cannot be converted to integer dtype {dtype}")  # noqa: F821
        whole = np.trunc(wide_np)
        bad_np = (whole < float(info.min)) | (whole > float(info.max)) | (whole >= float(info.max + 1))
    else:
        sinfo = torch.iinfo(source.dtype)
        if sinfo.min >= info.min and sinfo.max <= info.max:
            return
        values = source.numpy()
        bad_np = ((source < info.min) | (source > info.max)).numpy()  # BUG: torch has no lt/gt for uint16/32/64
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
    return fork("b02", _host={"check_representable": check_representable})


def target() -> Target:
    return fork_target_full("b02_uint_range_check_in_torch", _fork())
