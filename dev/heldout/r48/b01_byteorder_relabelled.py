"""b01 (CPU): a non-native byte order "fixed" by relabelling the dtype (``ndarray.view``) instead of converting (``astype``).

Where: ``h2d_impl/_host.py::_numpy_to_tensor``, the non-native byte-order branch.

Change (one line)::

    arr = arr.astype(arr.dtype.newbyteorder("="))   # reference: converts the values
    arr = arr.view(arr.dtype.newbyteorder("="))     # bug: same bytes, read as native

An engineer "avoiding a copy" swaps ``astype`` for ``view``: ``view`` reinterprets the
bytes, so every big-endian element is read byte-swapped.

Promise broken: docs/reference.md, "What it promises", Inputs: "ndarrays in any layout
(negative strides, Fortran order, broadcast, non-native byte order, read-only, a structured
array's field)"; h2d_impl/h2d.py ``async_tensor_h2d`` docstring, data: "a ``numpy.ndarray``
in any layout (negative strides, Fortran order, broadcast, non-native byte order,
read-only)"; README, values: "result equals ``data`` converted to the resolved dtype, bit for
bit ... every dtype, input kind and layout".

Smallest input: ``async_tensor_h2d(np.array([1], dtype='>i4'), device='cpu')``.
Reference: ``tensor([1], dtype=torch.int32)``. Bug: ``tensor([16777216], dtype=torch.int32)``.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl._host import _NUMPY_KINDS, _VIEWABLE_CHARS
from plumbing import bu_fork, fork, make_target


def _numpy_to_tensor(arr: np.ndarray) -> torch.Tensor:
    """View (or, for layouts torch cannot view, copy) a numpy array as a CPU tensor."""
    dt = arr.dtype
    if (
        dt.char in _VIEWABLE_CHARS
        and dt.isnative
        and arr.flags.writeable
        and (arr.ndim == 0 or (arr.ndim == 1 and arr.strides[0] == dt.itemsize))
    ):
        return torch.from_numpy(arr)
    if arr.dtype.kind not in _NUMPY_KINDS:
        raise TypeError(
            f"data has numpy dtype {arr.dtype} (kind {arr.dtype.kind!r}); only bool, integer, "
            "floating and complex arrays can be copied to a device"
        )
    if arr.dtype.byteorder not in ("=", "|"):
        # Non-native byte order: torch.from_numpy refuses it; swap into native order.
        arr = arr.view(arr.dtype.newbyteorder("="))  # BUG (r48 b01): a relabelling view, not a conversion
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
    except TypeError as exc:  # e.g. float128 / longdouble
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def target() -> Target:
    f = fork("b01", _host={"_numpy_to_tensor": _numpy_to_tensor})
    return make_target(
        "b01_byteorder_relabelled",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01"),
    )
