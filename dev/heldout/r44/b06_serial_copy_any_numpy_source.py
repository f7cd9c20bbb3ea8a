"""b06 (CPU): the serial host copy sends every numpy-typed source through ``np.copyto``, whatever the target.

Where: ``h2d._serial_copy`` (host copies of 32,769 elements up to 256 KiB: the result of
a host call, and the staging of a CUDA call).

The change::

    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:
    ->
    if src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:

Why an engineer writes it: the condition reads as "numpy can hold the source" and the
``src.dtype == dst.dtype and`` conjunct looks redundant beside a copy with
``casting="unsafe"`` (numpy casts anything); the values of every numpy-to-numpy pair in
that size window come out the same. But the destination is then viewed with
``dst.numpy()``, which torch refuses for bfloat16 and the float8 dtypes: a valid
conversion into them raises in the middle of the copy.

Promise broken: README ``values``: "every dtype, input kind and layout ... sizes across
every power of two to 2**20 elements"; docs/reference.md *dtype* / ``SUPPORTED_DTYPES``
(bfloat16 and float8 are target dtypes); ``async_tensor_h2d`` docstring (no such
``TypeError`` is documented for valid data).

Smallest input: ``async_tensor_h2d(torch.zeros(32769), dtype=torch.bfloat16, device="cpu")``.
Reference: 32,769 bfloat16 zeros. Bug: ``TypeError: Got unsupported ScalarType BFloat16``
(32,768 elements or fewer, or more than 256 KiB, still work: only that window fails).
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target


def _serial_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """``dst.copy_(src)`` into a staging tensor of the reference's own, on the calling thread alone; returns ``dst``."""
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():  # noqa: F821
        return dst.copy_(src)
    if src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:  # noqa: F821  BUG: same-dtype conjunct dropped
        with np.errstate(all="ignore"):  # a signalling NaN warns in numpy's cast, never in torch's
            np.copyto(dst.numpy(), src.numpy(), casting="unsafe")
        return dst
    _copy_in_pieces(dst, src)  # noqa: F821
    return dst


def _fork() -> Fork:
    return fork("b06", h2d={"_serial_copy": _serial_copy})


def target() -> Target:
    f = _fork()
    return make_target(
        "b06_serial_copy_any_numpy_source",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06"),
    )
