"""b04 (CPU): the range check skipped for any source no wider than the target (an item-size test standing in for a range test).

Where: ``h2d_impl/_host.py::check_representable``, the first shortcut.

Change (one line)::

    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype == torch.bool:                  # reference
    if dtype not in _INTEGER_DTYPES or source.dtype.itemsize <= dtype.itemsize or source.dtype == torch.bool:  # bug

"A source no wider than the target always fits, skip the scan" (meant for int32 ids into
int64): false across signedness (``-1`` into uint64, int8 ``-1`` into uint16, uint8 ``200``
into int8) and for floats (NaN, inf and 1e30 as float32 into int32 or int64, as float64 into
int64). Those values are then converted by ``Tensor.to`` and wrap or turn into garbage
(NaN float32 into int32 gives -2147483648).

Promise broken: docs/reference.md, "Integer targets": "Refused with `ValueError`: NaN, inf, a
float whose truncated value lies outside the dtype's range ..., and an integer outside it";
h2d_impl/_host.py ``check_representable`` docstring: "integer -> narrower integer: every
value must lie in the target's range, else ValueError"; h2d_impl/h2d.py ``async_tensor_h2d``
docstring, Raises: "ValueError: ... NaN/inf or out-of-range values for an integer dtype";
docs/contracts.md, bad-input kinds ``negative-into-unsigned``, ``nan-to-int``.

Smallest input: ``async_tensor_h2d([-1], dtype=torch.uint64, device='cpu')``.
Reference: ``ValueError: data[0] = -1 is out of range for torch.uint64 [...]``.
Bug: ``tensor([18446744073709551615], dtype=torch.uint64)``.
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
    if dtype not in _INTEGER_DTYPES or source.dtype.itemsize <= dtype.itemsize or source.dtype == torch.bool:  # BUG (r48 b04)
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


def target() -> Target:
    f = fork("b04", _host={"check_representable": check_representable})
    return make_target(
        "b04_width_test_for_range",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04"),
    )
