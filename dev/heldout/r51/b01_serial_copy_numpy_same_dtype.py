"""b01 (CPU): the serial host copy sends every same-dtype copy through numpy, bfloat16 and float8 included, which numpy cannot hold.

Where: ``h2d_impl/h2d.py::_serial_copy`` (the numpy route of the host staging copy, 32,769
elements up to 256 KiB).

Change (one condition)::

    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:  # reference
    if src.dtype == dst.dtype or (src.dtype, dst.dtype) in _NUMPY_CASTS:  # bug: "a pure copy is a memcpy, numpy can do any"

The membership test looked redundant ("same dtype: nothing to convert"), but ``Tensor.numpy()``
refuses dtypes numpy has no type for: a pure copy of a bfloat16 or float8 tensor (or array-less
source) of 32,769 to 131,072 elements (262,144 for float8) now raises ``TypeError: Got
unsupported ScalarType BFloat16`` from ``dst.numpy()``, naming no argument. Smaller and larger
payloads (torch's own ``copy_``), and conversions, are unchanged; every numpy-typed pure copy
is unchanged (bool included: numpy copies its bytes as torch's memcpy does).

Promise broken: README, values: "result equals `data` converted to the resolved dtype, bit for
bit ... every dtype, input kind and layout ... sizes across every power of two to 2**20
elements"; h2d_impl/h2d.py ``_serial_copy`` docstring: "one ``numpy.copyto`` where numpy's cast
is torch's (:data:`_NUMPY_CASTS`...), else torch copies of at most :data:`_TORCH_GRAIN`
elements each"; docs/reference.md, Errors: "`TypeError` (wrong kind) ... naming the argument"
(a valid call raises here).

Smallest input: ``async_tensor_h2d(torch.zeros(32769, dtype=torch.bfloat16), device='cpu')``.
Reference: a bfloat16 tensor of 32,769 zeros. Bug: ``TypeError: Got unsupported ScalarType
BFloat16``.
"""

from __future__ import annotations

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _serial_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():  # noqa: F821
        return dst.copy_(src)
    if src.dtype == dst.dtype or (src.dtype, dst.dtype) in _NUMPY_CASTS:  # noqa: F821  BUG (r51 b01): _NUMPY_SAME dropped
        with np.errstate(all="ignore"):
            np.copyto(dst.numpy(), src.numpy(), casting="unsafe")
        return dst
    _copy_in_pieces(dst, src)  # noqa: F821
    return dst


def target() -> Target:
    f = fork("b01", h2d={"_serial_copy": _serial_copy})
    return make_target(
        "b01_serial_copy_numpy_same_dtype",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01"),
    )
