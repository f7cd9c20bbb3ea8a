"""b10 - the complex-to-real refusal lost its ``raise``: the exception is built and dropped.

Where: ``_host.check_representable`` (first branch: conversions into non-integer dtypes).

Change (old -> new)::

    if source.is_complex() and not dtype.is_complex and dtype is not torch.bool:
        raise TypeError(f"data is complex ({source.dtype}) but dtype={dtype} is not: ...")
    ->
    if source.is_complex() and not dtype.is_complex and dtype is not torch.bool:
        TypeError(f"data is complex ({source.dtype}) but dtype={dtype} is not: ...")  # BUG: no raise

Why an engineer writes it: a message rewrite (the f-string was split over lines and the
statement re-indented) loses the ``raise`` keyword; the line still constructs the exception, so
nothing looks wrong and no test of a *valid* call changes. The refusal into integer dtypes is
a separate ``raise`` further down and still works, so a spot check with ``dtype=torch.int32``
passes too. Into float, half, bfloat16 and float8 dtypes the conversion now goes ahead: torch's
``copy_`` drops the imaginary part with a ``UserWarning``.

Promise broken: docs/contracts.md "bad-input" (kinds ``complex-to-real`` and
``empty-complex-to-real`` must raise ``TypeError`` naming the argument) and the ``raises``
section of ``async_tensor_h2d``'s docstring ("TypeError: ... complex data into a real dtype").

Smallest input (CPU)::

    async_tensor_h2d([1 + 2j], dtype=torch.float32, device="cpu")

Reference: ``TypeError: data is complex (torch.complex128) but dtype=torch.float32 is not ...``.
Bug: returns ``tensor([1.])`` with ``UserWarning: Casting complex values to real discards the
imaginary part``.
"""

from __future__ import annotations

import numpy as np
import torch
from h2d_contracts.contracts import Target
from plumbing import fork, fork_target_full


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    """Raise unless converting ``source`` to ``dtype`` keeps every value's meaning (see the reference)."""
    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype == torch.bool:
        if source.is_complex() and not dtype.is_complex and dtype is not torch.bool:
            TypeError(  # BUG: the raise keyword was lost
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
    return fork_target_full(
        "b10_complex_refusal_raise_dropped", fork("b10", _host={"check_representable": check_representable})
    )
