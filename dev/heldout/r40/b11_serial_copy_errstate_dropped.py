"""b11 (CPU-visible): the numpy route of the serial host copy no longer isolates numpy's floating-point state.

Where: ``h2d_impl/h2d.py``, ``_serial_copy``.

Change: ``with np.errstate(all="ignore"): np.copyto(...)`` -> ``np.copyto(...)`` (the
``errstate`` block removed).

Why plausible: "validation already refused NaN, inf and out-of-range values into integer
dtypes, so numpy's cast cannot hit an invalid value; the errstate costs ~1 us a call".
A *signalling* NaN still raises the FP "invalid" flag in numpy's float -> bool cast (and
float32 -> float64), which torch's copy never reports: numpy then warns, or raises
``FloatingPointError`` under a caller's ``np.seterr(invalid="raise")``. The caller's numpy
error state now decides whether a valid call succeeds.

Promise broken: docs/reference.md "Process-wide state: ... numpy's error state inside
``np.errstate``"; ``_serial_copy`` docstring: "its floating-point warnings silenced, as
torch has none"; README values: "signed zeros, NaN payloads ... in every kind at every
size" (a valid call must return a result, not raise); side-effects: a call leaves
"numpy's error state" and warnings as it found them (a RuntimeWarning is now emitted).

Smallest input: ``data = torch.full((32769,), 0x7FA00000, dtype=torch.int32).view(torch.float32)``
(signalling NaNs), ``async_tensor_h2d(data, dtype=torch.bool, device='cpu')`` (the serial
numpy route: 32,769..65,536 float32 elements into bool).
Reference: ``tensor([True, ..., True])``, no warning, also under ``np.errstate(invalid='raise')``.
Bug: the same tensor plus ``RuntimeWarning: invalid value encountered in cast``; under
``np.errstate(invalid='raise')``: ``FloatingPointError: invalid value encountered in cast``.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._common import Fork, fork, fork_target_full


def _serial_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():  # noqa: F821
        return dst.copy_(src)
    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:  # noqa: F821
        np.copyto(dst.numpy(), src.numpy(), casting="unsafe")  # BUG: np.errstate(all="ignore") dropped
        return dst
    _copy_in_pieces(dst, src)  # noqa: F821
    return dst


def _fork() -> Fork:
    return fork("b11", h2d={"_serial_copy": _serial_copy})


def target() -> Target:
    return fork_target_full("b11_serial_copy_errstate_dropped", _fork())
