"""b11 (CPU): uint8 sources are exempted from the integer range check, as bool sources are ("byte masks hold 0 and 1").

Where: ``h2d_impl/_host.py::check_representable`` (every entry point; uint8 arrays, tensors and ``np.uint8`` scalars
into an integer dtype).

Change: a widened shortcut ("bool tensors fit every integer dtype, and so do masks: numpy's boolean indexing
masks and torch's pre-1.2 masks are uint8 arrays of 0 and 1, and the range scan of a large mask is wasted")::

    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype == torch.bool:                 # reference

    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype in (torch.bool, torch.uint8):  # bug

For a mask the result is the same. But a uint8 source is not a mask in general (image bytes, quantised
weights, token bytes), and of the integer targets one cannot hold every uint8: int8. Values from 128 to 255
into int8 are no longer refused; ``Tensor.to`` wraps them (200 becomes -56). uint8 into every wider integer
dtype, and into uint8 itself, was in range anyway.

Promise broken: h2d_impl/_host.py ``check_representable``: "integer -> narrower integer: every value must lie in the target's
range, else ValueError (e.g. ``[2**40]`` into ``int32``)"; h2d_impl/h2d.py ``async_tensor_h2d``: "Raises: ... ValueError:
... out-of-range values for an integer dtype"; docs/reference.md, Integer targets: "Refused with ``ValueError``: ... an
integer outside it".

Smallest input: ``async_tensor_h2d(np.array([200], dtype=np.uint8), dtype=torch.int8, device='cpu')``.
Reference: ``ValueError: data[0] = 200 is out of range for torch.int8 [-128, 127]``.
Bug: ``tensor([-56], dtype=torch.int8)``.
"""

from __future__ import annotations

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _INTEGER_DTYPES, _NUMPY_FLOATS, _first_index, _at)


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    """Raise unless converting ``source`` to ``dtype`` keeps every value's meaning."""
    # bool tensors and byte masks (numpy's and torch's uint8 masks) hold 0 and 1: they fit every integer dtype
    if (
        dtype not in _INTEGER_DTYPES
        or source.dtype == dtype
        or source.dtype in (torch.bool, torch.uint8)  # BUG (r57 b11): uint8 taken for a 0/1 mask
    ):
        if source.is_complex() and not dtype.is_complex and dtype is not torch.bool:
            raise TypeError(
                f"data is complex ({source.dtype}) but dtype={dtype} is not: the imaginary part would be lost"
            )
        return
    if source.is_complex():  # before the empty shortcut: an empty complex input is refused like any other
        raise TypeError(f"data is complex ({source.dtype}) but dtype={dtype} is an integer dtype")
    if source.numel() == 0 or source._is_zerotensor():  # no values, or a ZeroTensor's zeros (no storage to read)
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
        values = (source.resolve_neg() if source.is_neg() else source).numpy()  # numpy cannot read the negative bit
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
    f = fork("b11", _host={"check_representable": check_representable})
    return make_target(
        "b11_uint8_range_check_skipped_as_mask",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b11"),
    )
