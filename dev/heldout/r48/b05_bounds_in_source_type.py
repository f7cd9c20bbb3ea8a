"""b05 (CPU): integer range bounds converted to the source array's own numpy scalar type before comparing (a NEP 50 misreading).

Where: ``h2d_impl/_host.py::check_representable``, the integer-to-integer branch.

Change (one line)::

    bad_np = (values < info.min) | (values > info.max)                                        # reference
    bad_np = (values < values.dtype.type(info.min)) | (values > values.dtype.type(info.max))  # bug

Written "so that numpy 2 compares in the array's own dtype and never promotes". numpy
compares an integer array with a Python int exactly, whatever its value; converting the
bound first raises ``OverflowError`` whenever a bound of the target's range does not fit the
source's type, valid values or not: a signed source into an unsigned target at least as wide
(every int64 source, lists of ints included, into uint64; int32 into uint32), an unsigned
source into a signed target that cannot hold all its values (uint8 into int8, uint32 into
int32, uint64 into int64). Other pairs (int32 into uint8, uint8 into int16) still work.

Promise broken: docs/contracts.md, values: "Integer conversions are exact to the ends of the
range (table `prop_values_int_edges`: arrays and tensors of every integer width and
signedness, and lists of Python ints, into every integer dtype ...)"; docs/reference.md,
Errors: "`TypeError` (wrong kind), `ValueError` (wrong value), ... naming the argument"
(an ``OverflowError`` on a valid call, and on bad ones instead of ``ValueError``).

Smallest input: ``async_tensor_h2d([1], dtype=torch.uint64, device='cpu')``.
Reference: ``tensor([1], dtype=torch.uint64)``.
Bug: ``OverflowError: Python int too large to convert to C long``.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    """Raise unless converting ``source`` to ``dtype`` keeps every value's meaning.

    Rules (torch's own ``Tensor.to`` wraps integers and turns NaN into garbage; the
    reference refuses both instead):

    - complex -> non-complex: TypeError (the imaginary part would be dropped).
    - float -> integer: the conversion of C, numpy (``astype``) and ``Tensor.to``: the value is
      truncated toward zero (``[1.5, -2.7] -> [1, -2]``), and refused with ValueError only
      when it is NaN or infinite, or when the truncated value lies outside the integer
      dtype's ``[min, max]``. So ``127.5`` into int8 is 127 and ``-0.5`` into uint8 is 0
      (``torch.tensor([127.5], dtype=torch.int8)`` refuses them; vLLM's list path builds with
      it, docs/reference.md), while ``128.0`` into int8 and ``-1.5`` into uint8 are refused.
    - integer -> narrower integer: every value must lie in the target's range, else
      ValueError (e.g. ``[2**40]`` into ``int32``).
    - anything -> bool, and conversions into floating dtypes follow torch (nonzero is
      True; float narrowing rounds, overflow gives inf).

    Raises:
        TypeError, ValueError: as above; the message gives the first offending index.
    """
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
        whole = np.trunc(wide_np)
        bad_np = (whole < float(info.min)) | (whole > float(info.max)) | (whole >= float(info.max + 1))
    else:
        sinfo = torch.iinfo(source.dtype)
        if sinfo.min >= info.min and sinfo.max <= info.max:
            return
        # numpy compares any integer dtype with Python ints exactly (torch has no
        # comparison kernels for uint16/32/64 on the CPU).
        values = source.numpy()
        bad_np = (values < values.dtype.type(info.min)) | (values > values.dtype.type(info.max))  # BUG (r48 b05)
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


def target() -> Target:
    f = fork("b05", _host={"check_representable": check_representable})
    return make_target(
        "b05_bounds_in_source_type",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05"),
    )
