"""b01 (CPU): the ndarray fast path's dtype verdict is memoised by ``dtype.char``, a key that has no byte order.

Where: ``h2d_impl/_host.py::_numpy_to_tensor`` (every ndarray ``data``, every entry point; also
numpy scalars, and lists, whose arrays go through it).

Change: the fast-path test's dtype half (``dt.char in _VIEWABLE_CHARS and dt.isnative``, "about
0.2 us of a 0.9 us small call") is computed once per dtype and kept in a dict, keyed by the same
``dt.char`` the table is built from::

    if (dt.char in _VIEWABLE_CHARS and dt.isnative and arr.flags.writeable and (...)):     # reference

    ok = _VIEWABLE_BY_CHAR.get(dt.char)                                                   # bug
    if ok is None:
        ok = _VIEWABLE_BY_CHAR[dt.char] = dt.char in _VIEWABLE_CHARS and dt.isnative
    if (ok and arr.flags.writeable and (...)):

``np.dtype('>i4').char`` is ``'i'``, as is native int32's: the byte order is not in the key. Once
a native int32 array has been sent, a byte-swapped 1-D (or 0-d) int32 array hits the memo's
``True`` and goes to ``torch.from_numpy``, which refuses it with its own ``ValueError`` (naming no
argument); the general route, which swaps it into native order, is never reached. The other
order (a swapped array first) only sends later native arrays the slow way, with the same values.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "data: ... a ``numpy.ndarray`` in any layout
(negative strides, Fortran order, broadcast, non-native byte order, read-only)"; docs/reference.md,
Where it differs from vLLM: "negative-stride, byte-swapped, structured-field arrays | refused by
``torch.from_numpy`` | copied".

Smallest input: ``async_tensor_h2d(np.array([1, 2], dtype=np.int32), device='cpu')``, then
``async_tensor_h2d(np.array([1, 2], dtype='>i4'), device='cpu')``.
Reference: ``tensor([1, 2], dtype=torch.int32)`` twice. Bug: the first, then ``ValueError: given numpy
array has byte order different from the native byte order. Conversion between byte orders is
currently not supported.``
"""

from __future__ import annotations

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with the dtype half of the fast-path test memoised; every other name
# resolves in the forked module.
# ruff: noqa: F821


def _numpy_to_tensor(arr: np.ndarray) -> torch.Tensor:
    """View (or, for layouts torch cannot view, copy) a numpy array as a CPU tensor."""
    dt = arr.dtype
    ok = _VIEWABLE_BY_CHAR.get(dt.char)  # BUG (r55 b01): keyed by char, which carries no byte order
    if ok is None:
        ok = _VIEWABLE_BY_CHAR[dt.char] = dt.char in _VIEWABLE_CHARS and dt.isnative
    if ok and arr.flags.writeable and (arr.ndim == 0 or (arr.ndim == 1 and arr.strides[0] == dt.itemsize)):
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
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(arr)
    except TypeError as exc:
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def target() -> Target:
    f = fork("b01", _host={"_numpy_to_tensor": _numpy_to_tensor, "_VIEWABLE_BY_CHAR": {}})
    return make_target(
        "b01_fast_path_verdict_memo_by_char",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01"),
    )
