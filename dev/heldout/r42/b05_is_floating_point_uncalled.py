"""b05 (CPU): integer sources are range-checked through float64: uint64 values just below 2**63 are refused for int64.

Where: h2d_impl/_host.py, ``check_representable``.
Change: ``if source.is_floating_point():`` -> ``if source.is_floating_point:`` (the method, not its
    result: a bound method is always truthy).
Why plausible: ``is_floating_point`` reads like the attribute ``dtype.is_floating_point`` used a few
    lines up (``dt.is_floating_point`` in ``_INTEGER_DTYPES``); the missing parentheses raise
    nothing, and every float source still takes the branch it took before.
Promise broken: docs/reference.md, Integer targets: refused only "an integer outside it";
    check_representable's docstring: "integer -> narrower integer: every value must lie in the
    target's range, else ValueError"; contracts.md values: "A valid call that raises ... fails".
Smallest input:
    async_tensor_h2d(np.array([2**63 - 1], dtype=np.uint64), device="cpu", dtype=torch.int64)
Reference: ``tensor([9223372036854775807])``. Bug: ``ValueError: data[0] = 9.223372036854776e+18 is out
    of range for torch.int64``: the integer took the float branch, became 2.0**63 in float64 and
    failed the ``>= max + 1`` test. Integer sources whose values float64 holds exactly (all of
    int8..int32, and int64/uint64 below 2**53) are judged right, only slower.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full


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
    if source.is_floating_point:  # BUG: the bound method, always truthy: integers take the float branch
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


def target() -> Target:
    return fork_target_full(
        "b05_is_floating_point_uncalled", fork("b05", _host={"check_representable": check_representable})
    )
