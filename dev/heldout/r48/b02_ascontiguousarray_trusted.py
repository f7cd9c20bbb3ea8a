"""b02 (CPU): the re-layout copy for strides torch cannot express done by ``np.ascontiguousarray``, which trusts numpy's contiguity flag.

Where: ``h2d_impl/_host.py::_numpy_to_tensor``, the branch for negative strides and strides
that are not a multiple of the item size.

Change (one line)::

    arr = np.array(arr, order="C", copy=True)   # reference: always a fresh C-order copy
    arr = np.ascontiguousarray(arr)             # bug: "copy only when needed"

numpy sets ``C_CONTIGUOUS`` on an array whose only odd strides are on size-1 dimensions
(``np.flip(np.array([7]))`` has stride -8; a one-record structured field has stride 5 for
int32), so ``ascontiguousarray`` returns it unchanged and ``torch.from_numpy`` refuses it with
a ``ValueError`` about its strides. Arrays with more than one element along the odd
dimension are still copied correctly.

Promise broken: docs/reference.md, Inputs: "ndarrays in any layout (negative strides,
Fortran order, broadcast, non-native byte order, read-only, a structured array's field)";
h2d_impl/h2d.py ``async_tensor_h2d`` docstring, data: "a ``numpy.ndarray`` in any layout
(negative strides, ...)"; docs/contracts.md, values: "A valid call that raises ... fails",
and ``prop_values_layouts`` covers "every array and tensor layout, size-1 and empty shapes".

Smallest input: ``async_tensor_h2d(np.flip(np.array([7])), device='cpu')``.
Reference: ``tensor([7])``. Bug: ``ValueError: At least one stride in the given numpy array
is negative ...`` (a message that does not name ``data``).
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
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype.kind in "iu" and arr.dtype.char != np.dtype(arr.dtype.str).char:
        arr = arr.view(np.dtype(arr.dtype.str))
    if any(s < 0 or s % arr.itemsize for s in arr.strides):
        arr = np.ascontiguousarray(arr)  # BUG (r48 b02): numpy calls size-1 odd strides contiguous
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(arr)
    except TypeError as exc:  # e.g. float128 / longdouble
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def target() -> Target:
    f = fork("b02", _host={"_numpy_to_tensor": _numpy_to_tensor})
    return make_target(
        "b02_ascontiguousarray_trusted",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02"),
    )
