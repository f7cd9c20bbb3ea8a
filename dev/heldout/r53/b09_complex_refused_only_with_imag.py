"""b09 (CPU): complex data into a real floating dtype is refused only when some imaginary part is nonzero.

Where: ``h2d_impl/_host.py::check_representable`` (the complex test of non-integer targets).

Change: the refusal made value-dependent ("``1+0j`` loses nothing: only refuse what would lose an
imaginary part")::

    if source.is_complex() and not dtype.is_complex and dtype is not torch.bool:            # reference
    if source.is_complex() and not dtype.is_complex and dtype is not torch.bool \
            and bool(source.imag.any()):                                                     # bug

Complex data with a nonzero imaginary part is refused as before; complex data whose imaginary
parts are all zero (a complex array that happens to hold reals, an empty one, ``0j``) is now
converted by torch's copy, which drops the imaginary part (torch warns). Whether the call raises
depends on the values, not the dtypes: the same code path refuses one batch and accepts the next.
(The integer-target branch still refuses every complex source.)

Promise broken: h2d_impl/_host.py ``check_representable``: "complex -> non-complex: TypeError (the
imaginary part would be dropped)"; h2d_impl/h2d.py ``async_tensor_h2d``: "Raises: TypeError: ...
complex data into a real dtype".

Smallest input: ``async_tensor_h2d([1+0j], dtype=torch.float32, device='cpu')``.
Reference: ``TypeError: data is complex (torch.complex128) but dtype=torch.float32 is not ...``.
Bug: ``tensor([1.])`` (and torch's "Casting complex values to real discards the imaginary part" warning).
"""

from __future__ import annotations

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with one line changed; every other name resolves in the forked module.
# ruff: noqa: F821


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype == torch.bool:
        if (  # BUG (r53 b09): refused only when an imaginary part is nonzero ("nothing would be lost")
            source.is_complex() and not dtype.is_complex and dtype is not torch.bool and bool(source.imag.any())
        ):
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
    f = fork("b09", _host={"check_representable": check_representable})
    return make_target(
        "b09_complex_refused_only_with_imag",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b09"),
    )
