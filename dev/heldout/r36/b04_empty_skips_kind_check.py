"""An empty input returns before the complex-to-real check.

What changed: ``_host.check_representable`` returned early for empty sources only on the
integer route, after the complex-to-real test of the first branch. The change hoists
``if source.numel() == 0: return`` to the top: "nothing to check in an empty input; empty
decode steps are frequent, skip the scans".

Why an engineer writes it: the early return already exists a few lines down; moving it
up looks like a pure speed-up (no values, no range to check).

Promise broken: ``async_tensor_h2d``'s Raises ("TypeError: ... complex data into a real
dtype") and contracts "bad-input" (``complex-to-real``: TypeError, whatever the size). The
refusal depends on the data's kind, not on its values: an empty complex array into a
real dtype is accepted and converted.

Smallest input: ``async_tensor_h2d(np.zeros(0, np.complex64), dtype=torch.float32,
device="cpu")``: reference ``TypeError`` (the imaginary part would be lost); bug returns
``tensor([])`` (float32).
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    # BUG: hoisted from the integer route below: nothing to check in an empty input
    if source.numel() == 0:
        return
    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype == torch.bool:  # noqa: F821
        if source.is_complex() and not dtype.is_complex and dtype is not torch.bool:
            raise TypeError(
                f"data is complex ({source.dtype}) but dtype={dtype} is not: the imaginary part would be lost"
            )
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
        "b04_empty_skips_kind_check", fork("b04", _host={"check_representable": check_representable})
    )
