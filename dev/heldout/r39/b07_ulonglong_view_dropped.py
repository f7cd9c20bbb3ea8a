"""b07 (CPU-visible, _host.py ``_numpy_to_tensor``): the view of ``np.longlong``/``np.ulonglong`` as the canonical int64/uint64 is removed as dead code; a list holding an int of 2**63 or more (numpy builds ``ulonglong`` for it) raises TypeError.

What changed: the block ``if arr.dtype.kind in "iu" and arr.dtype.char !=
np.dtype(arr.dtype.str).char: arr = arr.view(np.dtype(arr.dtype.str))`` was deleted.

Why an engineer would write it: the comment on ``_VIEWABLE_CHARS`` says "older torch
releases refused [np.longlong], torch 2.13 accepts it", and the block's own comment names
``np.longlong`` first: on the torch the project pins, the view looks like a leftover for
old releases. It is not: torch 2.13 still refuses ``np.ulonglong`` ("can't convert
np.ndarray of type numpy.ulonglong"), and ``np.asarray([2**63])`` builds exactly that.

Promise broken: ``async_tensor_h2d`` docstring, data: "a (nested, rectangular) list ...
of bool/int/float/complex" and "dtype: ... else the data's own dtype"; docs/reference.md
dtype rules and "Integer targets: ... Refused with ValueError: ... an integer outside
[the dtype's range]"; docs/contracts.md bad-input kinds ``uint64-beyond-int64`` and
``int-beyond-int64`` (``ValueError``) and values for ``dtype=torch.uint64``.

Smallest input: ``async_tensor_h2d([2**63], dtype=torch.uint64, device='cpu')``; also
``async_tensor_h2d([2**63], device='cpu')`` and ``np.array([1], dtype=np.ulonglong)``.

Reference result: ``tensor([9223372036854775808], dtype=torch.uint64)``; without
``dtype``: ``ValueError`` (out of range for int64); the ulonglong array: uint64 ``[1]``.
Bug result: ``TypeError: data has numpy dtype uint64, which torch cannot represent`` in
all three.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import buffer_utils_ns, fork, make_target


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
        arr = arr.astype(arr.dtype.newbyteorder("="))
    # BUG: deleted as dead on torch 2.13 ("accepts np.longlong"):
    #     if arr.dtype.kind in "iu" and arr.dtype.char != np.dtype(arr.dtype.str).char:
    #         arr = arr.view(np.dtype(arr.dtype.str))
    # torch still refuses np.ulonglong, which numpy builds for Python ints of 2**63 and up
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
    f = fork("b07", _host={"_numpy_to_tensor": _numpy_to_tensor})
    return make_target(
        "b07_ulonglong_view_dropped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
