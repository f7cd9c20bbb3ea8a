"""b07 (CPU): the re-raise around ``torch.from_numpy`` is dropped, so torch's own message (no ``data``) escapes.

Where: ``_host._numpy_to_tensor`` (every ndarray, numpy scalar and list converted
through numpy; main function and variant).

The change: the ``try: ... except TypeError as exc: raise TypeError(f"data has numpy
dtype {arr.dtype}, which torch cannot represent") from exc`` around the two
``torch.from_numpy`` calls is removed; the bodies stay as they were.

Why an engineer writes it: a handler that catches ``TypeError`` only to raise
``TypeError`` again looks like dead weight in review ("same exception type, drop the
wrapper"). What it added was the message: torch's reads ``can't convert np.ndarray of
type numpy.longdouble. The only supported types are: float64, ...``, which names no
argument.

Promise broken: docs/reference.md *Errors*: "``TypeError`` (wrong kind), ``ValueError``
(wrong value), never ``assert``, naming the argument"; docs/contracts.md bad-input: "a
message naming the argument at fault (``data``, ...)", kind ``longdouble-array``.

Smallest input: ``async_tensor_h2d(np.array([1.0], dtype=np.longdouble), device="cpu")``.
Reference: ``TypeError: data has numpy dtype float128, which torch cannot represent``.
Bug: ``TypeError: can't convert np.ndarray of type numpy.longdouble. The only supported
types are: ...`` (same type, the argument no longer named; the same for
``np.longdouble(1.0)`` and ``[np.longdouble(1.0)]``).
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target


def _numpy_to_tensor(arr: np.ndarray) -> torch.Tensor:
    """View (or, for layouts torch cannot view, copy) a numpy array as a CPU tensor."""
    dt = arr.dtype
    if (
        dt.char in _VIEWABLE_CHARS
        and dt.isnative
        and arr.flags.writeable
        and (arr.ndim == 0 or (arr.ndim == 1 and arr.strides[0] == dt.itemsize))
    ):
        # The common case (a writeable, native, 0-d or unit-stride 1-d array) in one test:
        # the checks below cost about 0.8 us of a small call (as_source_tensor of 16 int32:
        # 1.66 -> 0.90 us on the CPU machine, bench/host_prep_timings.py; docs/performance.md).
        return torch.from_numpy(arr)
    if arr.dtype.kind not in _NUMPY_KINDS:
        raise TypeError(
            f"data has numpy dtype {arr.dtype} (kind {arr.dtype.kind!r}); only bool, integer, "
            "floating and complex arrays can be copied to a device"
        )
    if arr.dtype.byteorder not in ("=", "|"):
        # Non-native byte order: torch.from_numpy refuses it; swap into native order.
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype.kind in "iu" and arr.dtype.char != np.dtype(arr.dtype.str).char:
        # np.longlong / np.ulonglong alias int64 / uint64 but torch.from_numpy refuses
        # them (numpy builds them for Python ints of 2**63 and up): view as the canonical type.
        arr = arr.view(np.dtype(arr.dtype.str))
    if any(s < 0 or s % arr.itemsize for s in arr.strides):
        # Negative strides (e.g. a[::-1]) and strides that are not a multiple of the item
        # size (a field of a structured array): torch tensors cannot express them. A fresh
        # C-order copy, not np.ascontiguousarray: numpy counts an array whose only odd
        # strides are on size-1 dimensions as contiguous and returns it unchanged
        # (np.flip(np.array([7])) keeps its stride -8), which torch.from_numpy refuses.
        arr = np.array(arr, order="C", copy=True)
    # BUG: the try/except that re-raised torch's TypeError as a TypeError was removed as redundant
    if arr.flags.writeable:
        return torch.from_numpy(arr)
    # torch warns about read-only arrays because a tensor could write through; the
    # reference only ever reads from the source.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return torch.from_numpy(arr)

def _fork() -> Fork:
    return fork("b07", _host={"_numpy_to_tensor": _numpy_to_tensor})


def target() -> Target:
    f = _fork()
    return make_target(
        "b07_numpy_rewrap_dropped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b07"),
    )
