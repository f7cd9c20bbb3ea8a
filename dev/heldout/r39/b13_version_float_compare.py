"""b13 (CPU-visible, _host.py ``_numpy_to_tensor``): a compatibility shim for torch < 2.3 (no uint16/32/64 in ``torch.from_numpy``) is gated by ``float("2.13") >= 2.3``, which is False: on torch 2.13 unsigned arrays come back widened to int32/int64, and uint64 arrays are refused.

What changed: ``_numpy_to_tensor`` gained, before its fast path, the shim "torch before
2.3 cannot view uint16/uint32/uint64 arrays: widen uint16 to int32 and uint32 to int64,
refuse uint64", gated by ``_FROM_NUMPY_WIDE_UINT = float(".".join(torch.__version__.split(".")[:2])) >= 2.3``.

Why an engineer would write it: the kit's install notes allow ``torch>=2.4`` on GPU
machines and engines still run older torch; the shim keeps old releases working, and
parsing "major.minor" as a float is a common idiom that is right for 2.3 through 2.9. On
2.10 and later ("2.13" -> 2.13 < 2.3) it is wrong, and the shim fires on the torch the
project pins.

Promise broken: ``async_tensor_h2d`` docstring: "dtype: ... else the data's own dtype";
docs/reference.md "dtype: ``dtype=``, else ``out.dtype``, else the data's own";
docs/contracts.md values: ``prop_values_wide_numpy`` "(uint16/32/64 and complex arrays)"
and "same shape and dtype, and the same bits".

Smallest input: ``async_tensor_h2d(np.array([1], dtype=np.uint16), device='cpu')``
(also ``np.array([1], dtype=np.uint64)``).

Reference result: ``tensor([1], dtype=torch.uint16)``; uint64: ``tensor([1],
dtype=torch.uint64)``.
Bug result: ``tensor([1], dtype=torch.int32)``; uint64: ``TypeError: ... needs torch >=
2.3``. With ``dtype=torch.uint16`` given, the values still come out right.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import Raw, buffer_utils_ns, fork, make_target

#: torch.from_numpy views uint16/uint32/uint64 arrays from torch 2.3 on.
# BUG: "major.minor" parsed as a float: torch 2.13 -> 2.13 < 2.3 (use packaging's Version or torch.__version__'s own comparison)
_FROM_NUMPY_WIDE_UINT = float(".".join(torch.__version__.split(".")[:2])) >= 2.3


def _numpy_to_tensor(arr: np.ndarray) -> torch.Tensor:
    """View (or, for layouts torch cannot view, copy) a numpy array as a CPU tensor."""
    if not _FROM_NUMPY_WIDE_UINT and arr.dtype.kind == "u" and arr.dtype.itemsize > 1:
        # torch < 2.3: from_numpy has no uint16/32/64; widen to the next signed dtype (uint64 has none)
        if arr.dtype.itemsize == 8:
            raise TypeError(f"data has numpy dtype {arr.dtype}, which needs torch >= 2.3")
        arr = arr.astype(np.int32 if arr.dtype.itemsize == 2 else np.int64)
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
    try:
        if arr.flags.writeable:
            return torch.from_numpy(arr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return torch.from_numpy(arr)
    except TypeError as exc:  # e.g. float128 / longdouble
        raise TypeError(f"data has numpy dtype {arr.dtype}, which torch cannot represent") from exc


def target() -> Target:
    f = fork(
        "b13",
        _host={"_numpy_to_tensor": _numpy_to_tensor, "_FROM_NUMPY_WIDE_UINT": Raw(_FROM_NUMPY_WIDE_UINT)},
    )
    return make_target(
        "b13_version_float_compare",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
