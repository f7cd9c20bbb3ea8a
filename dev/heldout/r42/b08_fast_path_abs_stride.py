"""b08 (CPU): reversed 1-D arrays (``a[::-1]``, negative unit stride) are refused instead of copied.

Where: h2d_impl/_host.py, ``_numpy_to_tensor`` (the fast-path test).
Change: ``(arr.ndim == 1 and arr.strides[0] == dt.itemsize)`` ->
    ``(arr.ndim == 1 and abs(arr.strides[0]) == dt.itemsize)``.
Why plausible: "a unit stride is a unit stride, whichever the direction": the developer
    widening the fast path to reversed token lists believes ``torch.from_numpy`` takes any
    unit-stride 1-D array. It does not take negative strides, and the general route, which
    copies them, is now skipped for exactly those arrays.
Promise broken: async_tensor_h2d's docstring: "``numpy.ndarray`` in any layout (negative strides,
    ...)"; docs/reference.md, where it differs from vLLM: "negative-stride ... arrays: refused by
    ``torch.from_numpy`` (vLLM) / copied (reference)".
Smallest input:
    async_tensor_h2d(np.arange(5)[::-1], device="cpu")
Reference: ``tensor([4, 3, 2, 1, 0])``. Bug: ``ValueError: At least one stride in the given numpy array
    is negative ...`` (a reversed 1-element array too). Flipped arrays of 2 or more dimensions still go
    the general route and are right.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full


def _numpy_to_tensor(arr: np.ndarray) -> torch.Tensor:
    dt = arr.dtype
    if (
        dt.char in _VIEWABLE_CHARS  # noqa: F821 (the fork's)
        and dt.isnative
        and arr.flags.writeable
        and (arr.ndim == 0 or (arr.ndim == 1 and abs(arr.strides[0]) == dt.itemsize))  # BUG: abs() admits stride -itemsize
    ):
        return torch.from_numpy(arr)
    if arr.dtype.kind not in _NUMPY_KINDS:  # noqa: F821
        raise TypeError(
            f"data has numpy dtype {arr.dtype} (kind {arr.dtype.kind!r}); only bool, integer, "
            "floating and complex arrays can be copied to a device"
        )
    if arr.dtype.byteorder not in ("=", "|"):
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype.kind in "iu" and arr.dtype.char != np.dtype(arr.dtype.str).char:
        arr = arr.view(np.dtype(arr.dtype.str))
    if any(s < 0 or s % arr.itemsize for s in arr.strides):
        arr = np.array(arr, order="C", copy=True)
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(arr)
    except TypeError as exc:
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def target() -> Target:
    return fork_target_full("b08_fast_path_abs_stride", fork("b08", _host={"_numpy_to_tensor": _numpy_to_tensor}))
