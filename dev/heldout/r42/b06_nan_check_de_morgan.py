"""b06 (CPU): NaN into an integer dtype is refused only when *every* element is non-finite: a NaN among finite values becomes garbage.

Where: h2d_impl/_host.py, ``check_representable`` (float -> integer branch).
Change: ``bad_np = ~np.isfinite(wide_np)`` / ``if bad_np.any():`` ->
    ``if not np.isfinite(wide_np).any():`` (the mask computed inside the branch, for its message).
Why plausible: written to skip building the inverted mask on the common all-finite path; "some
    element is not finite" was negated as "not (some element is finite)", a De Morgan slip
    that reads right and is right for one-element inputs.
Promise broken: docs/reference.md, Integer targets: "Refused with ``ValueError``: NaN, inf ...";
    async_tensor_h2d's docstring: "ValueError: ... NaN/inf or out-of-range values for an integer
    dtype"; "On any exception nothing has been written".
Smallest input:
    async_tensor_h2d([1.0, float("nan")], device="cpu", dtype=torch.int32)
Reference: ``ValueError: data[1] = nan cannot be converted to integer dtype torch.int32``. Bug:
    ``tensor([1, -2147483648], dtype=torch.int32)`` (NaN cast to garbage). ``[float("nan")]`` alone,
    or ``[1.0, inf]`` (caught by the range test), is still refused.
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
    if source.is_floating_point():
        if source.dtype in _NUMPY_FLOATS and not source.is_neg():  # noqa: F821
            wide_np = source.numpy().astype(np.float64)
        else:
            wide_np = source.to(torch.float64).numpy()
        wide = torch.from_numpy(wide_np)
        if not np.isfinite(wide_np).any():  # BUG: "not any finite" where "any not finite" was meant
            bad_np = ~np.isfinite(wide_np)
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
    return fork_target_full("b06_nan_check_de_morgan", fork("b06", _host={"check_representable": check_representable}))
