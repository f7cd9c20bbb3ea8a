"""Values that overflow a half-precision target are refused instead of becoming inf.

What changed: ``_host.check_representable`` follows torch for floating targets ("float
narrowing rounds, overflow gives inf"). The change adds a range check for float16 and
bfloat16 targets: a finite value beyond ``finfo(dtype).max`` raises ValueError, "as an
out-of-range integer does: a silent inf in the KV cache scales is worse than an error".

Why an engineer writes it: it mirrors the integer range check a few lines below, and the
author just spent a day on a NaN that came from an fp16 overflow.

Promise broken: ``check_representable``'s own rules and docs/reference.md: "anything ->
bool, and conversions into floating dtypes follow torch (... float narrowing rounds,
overflow gives inf)"; contracts "values": the result equals ``data`` converted to the
resolved dtype (infinities and the dtype's extremes travel everywhere). A valid call now
raises.

Smallest input: ``async_tensor_h2d([70000.0], dtype=torch.float16, device="cpu")``:
reference ``tensor([inf], dtype=torch.float16)``; bug ``ValueError``.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    # BUG: new check: refuse finite values a half-precision target cannot hold (they would become inf)
    if dtype in (torch.float16, torch.bfloat16) and source.numel() and not source.is_complex():
        wide = source.to(torch.float64)
        finite = wide[torch.isfinite(wide)]
        if finite.numel() and float(finite.abs().max()) > torch.finfo(dtype).max:
            raise ValueError(f"data holds values beyond the range of {dtype} (they would become inf)")
    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype == torch.bool:  # noqa: F821
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
    return fork_target(
        "b03_half_overflow_refused", fork("b03", _host={"check_representable": check_representable})
    )
