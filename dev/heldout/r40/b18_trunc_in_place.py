"""b18 (CPU-visible): the float -> integer range check truncates in place, through a no-copy view of the caller's data.

Where: ``h2d_impl/_host.py``, ``check_representable`` (float -> integer branch).

Change: ``wide_np = source.numpy().astype(np.float64)`` / ``whole = np.trunc(wide_np)`` ->
``source.numpy().astype(np.float64, copy=False)`` / ``np.trunc(wide_np, out=wide_np)``: one
"avoid two float64 temporaries" edit of two adjacent lines.

Why plausible: the reference comment says the check runs in numpy to stay single-threaded;
for a multi-MB float64 source the two float64 copies are the check's whole cost, and
``copy=False`` plus an ``out=`` look like the textbook fix. For a float64 source,
``astype(copy=False)`` returns ``source.numpy()`` itself: a view of the caller's ndarray or
tensor, which ``np.trunc(..., out=)`` then truncates in place.

Promise broken: docs/reference.md "``data`` is only read: never padded, rewritten or
byte-swapped in place"; README input-untouched: "the caller's data (every nested list,
array flags, every storage byte) is bit-identical after any call, valid or failing";
``as_source_tensor``: "``source`` ... may alias ``data`` and must only be read".

Smallest input: ``a = np.array([1.5, -2.7]); async_tensor_h2d(a, dtype=torch.int32, device='cpu')``
(also a float64 tensor, and an out-of-range float64 input that is then refused).
Reference: result ``tensor([1, -2], dtype=torch.int32)``; ``a`` still ``[1.5, -2.7]``.
Bug: the same result; ``a`` is now ``[1., -2.]``.
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
            wide_np = source.numpy().astype(np.float64, copy=False)  # BUG (1/2): no copy for float64
        else:
            wide_np = source.to(torch.float64).numpy()
        wide = torch.from_numpy(wide_np)
        bad_np = ~np.isfinite(wide_np)
        if bad_np.any():
            idx = _first_index(torch.from_numpy(np.array(bad_np, dtype=np.bool_, ndmin=0, copy=True)))  # noqa: F821
            raise ValueError(f"{_at(idx)} = {wide[idx].item()} cannot be converted to integer dtype {dtype}")  # noqa: F821
        whole = np.trunc(wide_np, out=wide_np)  # BUG (2/2): truncated in place
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
    return fork("b18", _host={"check_representable": check_representable})


def target() -> Target:
    return fork_target_full("b18_trunc_in_place", _fork())
