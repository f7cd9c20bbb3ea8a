"""b11 - the final range test uses Python's builtin ``any()`` on a numpy mask instead of ``np.any``.

Where: ``_host.check_representable`` (the last test before the out-of-range refusal).

Change (old -> new)::

    if np.any(bad_np):
    ->
    if any(bad_np):  # BUG: the builtin iterates the first axis

Why an engineer writes it: a style pass ("``any`` is a builtin, no need for ``np.``") that is a
no-op for the 1-D lists and arrays every range test uses: iterating a 1-D boolean array yields
numpy bools. But ``any()`` iterates the *first axis*: for a 0-d source (a Python or numpy
scalar) the mask is a numpy scalar, which is not iterable (``TypeError``), and for 2-D data each
item is a row, whose truth value is ambiguous for rows of two or more (``ValueError``). Both
happen on *valid* calls, before anything is copied.

Promise broken: docs/contracts.md "values" (a valid call that raises fails; scalars, 0-d sources
and 2-D lists/arrays/tensors into every integer dtype: ``prop_values_dtype_matrix``,
``prop_values_rows``) and "bad-input" (value kinds carried "as a scalar" and nested must raise
``ValueError`` naming ``data``, not a ``TypeError`` about iteration).

Smallest input (CPU)::

    async_tensor_h2d(1.5, dtype=torch.int32, device="cpu")

Reference: ``tensor(1, dtype=torch.int32)``.
Bug: ``TypeError: 'numpy.bool' object is not iterable`` (and ``[[1.5, 2.5]]`` into int32 raises
``ValueError: The truth value of an array with more than one element is ambiguous``).
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
    if any(bad_np):  # BUG: builtin any() iterates the first axis
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
        "b11_builtin_any_on_mask", fork("b11", _host={"check_representable": check_representable})
    )
