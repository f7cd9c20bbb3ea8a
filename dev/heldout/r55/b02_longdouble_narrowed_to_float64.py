"""b02 (CPU): long-double arrays are narrowed to float64 (complex256 to complex128) instead of refused.

Where: ``h2d_impl/_host.py::_numpy_to_tensor`` (general route; every entry point, numpy scalars and
lists holding them included).

Change: a "harmless widening" of the accepted dtypes ("torch has no float128; x86's 80-bit long
double holds nothing an engine sends that float64 cannot: narrow it rather than fail the step"),
one branch before the ``torch.from_numpy`` that refused it::

    try:                                                                      # reference
        if arr.flags.writeable:
            return torch.from_numpy(arr)

    if arr.dtype.kind in "fc" and arr.dtype.char in "gG":                     # bug
        arr = arr.astype(np.float64 if arr.dtype.kind == "f" else np.complex128)
    try:
        ...

The call now returns plausible float64 values where the reference raises. The narrowing is
silent and lossy: the 64-bit mantissa of a long double is rounded to 53 bits (``1 + 2**-60``
becomes ``1.0``; ``2**62 + 1`` sent into int64 arrives as ``2**62``), and the result's dtype (float64) is
not the data's own.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "Raises: TypeError: ``data`` of an unsupported
kind or dtype"; h2d_impl/_host.py ``as_source_tensor``: "TypeError: ``data`` is of an unsupported kind
(..., unsupported dtypes)"; docs/contracts.md, bad-input: kind ``longdouble-array`` must raise
``TypeError``.

Smallest input: ``async_tensor_h2d(np.array([1.0], dtype=np.longdouble), device='cpu')``.
Reference: ``TypeError: data has numpy dtype float128, which torch cannot represent``.
Bug: ``tensor([1.], dtype=torch.float64)``.
"""

from __future__ import annotations

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with one branch added; every other name resolves in the forked module.
# ruff: noqa: F821


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
        arr = np.array(arr, order="C", copy=True)
    # torch has no float128: an engine's long doubles fit float64
    if arr.dtype.kind in "fc" and arr.dtype.char in "gG":  # BUG (r55 b02): narrowed (lossy) instead of refused
        arr = arr.astype(np.float64 if arr.dtype.kind == "f" else np.complex128)
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(arr)
    except TypeError as exc:
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def target() -> Target:
    f = fork("b02", _host={"_numpy_to_tensor": _numpy_to_tensor})
    return make_target(
        "b02_longdouble_narrowed_to_float64",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02"),
    )
