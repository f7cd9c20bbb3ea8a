"""b04 (CPU): the float -> integer range check truncates with a cast to int64 instead of ``np.trunc``.

Where: ``_host.check_representable`` (float data into an integer dtype; called by the
main function, the CPU-platform variant and, through them, every conversion).

The change::

    whole = np.trunc(wide_np)
    ->
    whole = wide_np.astype(np.int64)  # C's truncation toward zero, as the copy converts

Why an engineer writes it: the docstring says the value is "truncated toward zero ...
as C, numpy and ``Tensor.to`` convert it", and ``astype(np.int64)`` *is* C's
conversion, integral already, so the bounds read as integer comparisons. Inside int64
it equals ``np.trunc``. Outside it, C's conversion is undefined and numpy returns
INT64_MIN (with a ``RuntimeWarning: invalid value encountered in cast``): a float at or
past 2**63 then passes the int64 bounds (INT64_MIN is not below INT64_MIN) and is
converted by torch into garbage, and a valid float in [2**63, 2**64) into uint64 is
refused as negative. Under ``np.errstate(all="raise")`` the cast raises
``FloatingPointError`` where a ``ValueError`` is documented.

Promise broken: docs/reference.md *Integer targets*: "Refused with ``ValueError``: NaN,
inf, a float whose truncated value lies outside the dtype's range"; ``check_representable``
docstring: "refused with ValueError only when ... the truncated value lies outside the
integer dtype's ``[min, max]``"; README ``values`` ("integer conversions exact to the ends
of the range") and ``bad-input`` (``float-just-past-int-range``); contracts.md values
(numpy's error state is the caller's).

Smallest input: ``async_tensor_h2d([1e19], dtype=torch.uint64, device="cpu")``.
Reference: ``tensor([10000000000000000000], dtype=torch.uint64)``. Bug: ``ValueError:
data[0] = 1e+19 is out of range for torch.uint64``. Also ``async_tensor_h2d([2.0**63],
dtype=torch.int64, device="cpu")``: reference ``ValueError``; bug
``tensor([-9223372036854775808])``, silently.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    """Raise unless converting ``source`` to ``dtype`` keeps every value's meaning (the reference's rules)."""
    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype == torch.bool:
        if source.is_complex() and not dtype.is_complex and dtype is not torch.bool:
            raise TypeError(
                f"data is complex ({source.dtype}) but dtype={dtype} is not: the imaginary part would be lost"
            )
        return
    if source.is_complex():  # before the empty shortcut: an empty complex input is refused like any other
        raise TypeError(f"data is complex ({source.dtype}) but dtype={dtype} is an integer dtype")
    if source.numel() == 0:
        return
    info = torch.iinfo(dtype)
    # The checks run in numpy where it can hold the source: one thread, where each torch op
    # on more than 32,768 elements is an OpenMP region that waits about 8 ms for a time slice
    # when another thread is busy on the H200 host (h2d.SERIAL_COPY_MAX_BYTES).
    if source.is_floating_point():
        if source.dtype in _NUMPY_FLOATS and not source.is_neg():
            wide_np = source.numpy().astype(
                np.float64
            )  # float64 first: numpy 2 compares a float32 array with a Python float in float32
        else:  # bfloat16, float8, neg views: torch
            wide_np = source.to(torch.float64).numpy()
        wide = torch.from_numpy(wide_np)  # no copy: read only for a message
        bad_np = ~np.isfinite(wide_np)
        if bad_np.any():
            idx = _first_index(
                torch.from_numpy(np.array(bad_np, dtype=np.bool_, ndmin=0, copy=True))
            )  # 0-d: numpy gives a scalar
            raise ValueError(f"{_at(idx)} = {wide[idx].item()} cannot be converted to integer dtype {dtype}")
        # The value truncated toward zero must lie in [min, max] (C's, numpy's and Tensor.to's
        # conversion: -0.5 into uint8 is 0). float(max) rounds up for int64, so max + 1, a
        # power of two and exact in float64, is checked too.
        whole = wide_np.astype(np.int64)  # BUG: C's truncation toward zero, as the copy converts (was np.trunc)
        bad_np = (whole < float(info.min)) | (whole > float(info.max)) | (whole >= float(info.max + 1))
    else:
        sinfo = torch.iinfo(source.dtype)
        if sinfo.min >= info.min and sinfo.max <= info.max:
            return
        # numpy compares any integer dtype with Python ints exactly (torch has no
        # comparison kernels for uint16/32/64 on the CPU).
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


def _fork() -> Fork:
    return fork("b04", _host={"check_representable": check_representable})


def target() -> Target:
    f = _fork()
    return make_target(
        "b04_range_trunc_by_int64_cast",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04"),
    )
