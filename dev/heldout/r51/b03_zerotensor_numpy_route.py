"""b03 (CPU): the serial host copy's ZeroTensor guard dropped: a ZeroTensor source of 32,769+ elements reaches ``Tensor.numpy()``.

Where: ``h2d_impl/h2d.py::_serial_copy``.

Change (one term of a condition)::

    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():  # reference
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg():                          # bug

``src._is_zerotensor()`` looks like dead code (a private method, "nobody passes those"), but
autograd hands them out (``torch._efficientzerotensor``: the zero tangents and gradients of
forward-mode AD and ``torch.func``), and they are ordinary strided CPU tensors of a supported
dtype, so the reference accepts them. ``Tensor.numpy()`` refuses a ZeroTensor
(``RuntimeError: Cannot convert a ZeroTensor to numpy``): with the guard gone every ZeroTensor
of 32,769 elements up to 256 KiB whose copy takes the numpy route (a pure copy of a numpy
dtype, or a cast in ``_NUMPY_CASTS``) now raises ``RuntimeError`` (a type the contracts never
accept: not ``TypeError``/``ValueError``, naming no argument). Other sizes and torch-only
conversions still work.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d`` docstring, Args: "a CPU ``torch.Tensor``
in any strided layout, pinned or pageable"; docs/reference.md, Inputs: "CPU tensors in any
strided layout"; ``_serial_copy`` docstring: "Conj and neg views and zero tensors take torch's
own ``copy_`` whole".

Smallest input: ``async_tensor_h2d(torch._efficientzerotensor(32769), device='cpu')``.
Reference: a float32 tensor of 32,769 zeros. Bug: ``RuntimeError: Cannot convert a ZeroTensor
to numpy. Set force=True if you need the zero array.``
"""

from __future__ import annotations

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _serial_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg():  # noqa: F821  BUG (r51 b03): ZeroTensor guard dropped
        return dst.copy_(src)
    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:  # noqa: F821
        with np.errstate(all="ignore"):
            np.copyto(dst.numpy(), src.numpy(), casting="unsafe")
        return dst
    _copy_in_pieces(dst, src)  # noqa: F821
    return dst


def target() -> Target:
    f = fork("b03", h2d={"_serial_copy": _serial_copy})
    return make_target(
        "b03_zerotensor_numpy_route",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03"),
    )
