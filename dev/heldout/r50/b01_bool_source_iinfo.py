"""b01 (CPU): the bool-source shortcut of the range check dropped: a bool source reaches ``torch.iinfo(torch.bool)``, which raises.

Where: ``h2d_impl/_host.py::check_representable``, its first test.

Change (one condition)::

    if dtype not in _INTEGER_DTYPES or source.dtype == dtype or source.dtype == torch.bool:  # reference
    if dtype not in _INTEGER_DTYPES or source.dtype == dtype:                               # bug

The engineer reads the bool test as redundant ("bool's range, [0, 1], fits every integer
dtype; the integer branch's ``sinfo`` shortcut returns for it anyway"). But that branch
asks ``torch.iinfo(source.dtype)``, and ``torch.iinfo(torch.bool)`` raises ``TypeError``
("torch.bool is not supported by torch.iinfo"). Every bool source (a list of Python bools,
a bool array, a bool tensor, ``True``) into any integer dtype, by ``dtype=`` or by an
integer ``out``, is now refused with a ``TypeError`` that names no argument. Bool into
bool, float and complex dtypes still works, and so does every non-bool source.

Promise broken: docs/reference.md, "What it promises", Inputs: "rectangular (nested) lists
and tuples of bool/int/float/complex ..., ndarrays ..., CPU tensors", and dtype: "`dtype=`,
else `out.dtype`, else the data's own"; README, values: "result equals `data` converted to
the resolved dtype, bit for bit, ...; every dtype, input kind and layout"; docs/contracts.md,
values: "A valid call that raises, or returns something that is not a tensor, fails";
h2d_impl/_host.py ``check_representable`` docstring: the only refusals are complex into
non-complex, NaN/inf/out-of-range floats and out-of-range integers.

Smallest input: ``async_tensor_h2d([True], dtype=torch.int32, device='cpu')``.
Reference: ``tensor([1], dtype=torch.int32)``. Bug: ``TypeError: torch.bool is not supported
by torch.iinfo``.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    """Raise unless converting ``source`` to ``dtype`` keeps every value's meaning.

    (The reference's docstring; see h2d_impl/_host.py.)
    """
    if dtype not in _INTEGER_DTYPES or source.dtype == dtype:  # BUG (r50 b01): `or source.dtype == torch.bool` dropped
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
    if source.is_floating_point():
        if source.dtype in _NUMPY_FLOATS and not source.is_neg():
            wide_np = source.numpy().astype(np.float64)
        else:  # bfloat16, float8, neg views: torch
            wide_np = source.to(torch.float64).numpy()
        wide = torch.from_numpy(wide_np)
        bad_np = ~np.isfinite(wide_np)
        if bad_np.any():
            idx = _first_index(torch.from_numpy(np.array(bad_np, dtype=np.bool_, ndmin=0, copy=True)))
            raise ValueError(f"{_at(idx)} = {wide[idx].item()} cannot be converted to integer dtype {dtype}")
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
        idx = _first_index(bad)
        raise ValueError(f"{_at(idx)} = {wide[idx].item()} is out of range for {dtype} [{info.min}, {info.max}]")


def target() -> Target:
    f = fork("b01", _host={"check_representable": check_representable})
    return make_target(
        "b01_bool_source_iinfo",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01"),
    )
