"""b01 - numpy's ``errstate`` hoisted into a default argument of ``_serial_copy`` (a one-shot context manager).

Where: ``h2d._serial_copy`` (every host copy of 32,769 elements up to 256 KiB that numpy can cast:
the numpy branch).

Change (old -> new)::

    def _serial_copy(dst, src):
        ...
        with np.errstate(all="ignore"):
    ->
    def _serial_copy(dst, src, _quiet=np.errstate(all="ignore")):
        ...
        with _quiet:  # BUG: one errstate object for every call

Why an engineer writes it: ``_serial_copy`` sits on the hot path of mid-sized host copies and the
module counts microseconds (its docstrings quote cProfile timings); building an ``np.errstate``
per call is an allocation plus keyword parsing. Binding constants as default arguments is a
classic CPython micro-optimisation (``def f(x, _len=len)``), and a context manager that only
sets flags looks stateless. It is not: numpy 2's ``errstate.__enter__`` stores a contextvar
token on the object and refuses a second entry ("Cannot enter `np.errstate` twice"), and
``__exit__`` never clears it. The single call a unit test makes passes.

Promise broken: docs/contracts.md "values" ("A valid call that raises ... fails"; sizes across
every power of two, ``prop_values_large`` 65537 elements, ``prop_values_multi_mb``), and the
``numpy_error_state`` table of the same section (arrays of 1 to 40,000 elements).

Smallest input (CPU)::

    a = np.arange(40000, dtype=np.int32)
    async_tensor_h2d(a, device="cpu"); async_tensor_h2d(a, device="cpu")

Reference: two int32 tensors equal to ``a``.
Bug: the first call works, the second (and every later numpy-branch copy in the process)
raises ``TypeError: Cannot enter `np.errstate` twice.``
"""

from __future__ import annotations

import numpy as np
import torch
from h2d_contracts.contracts import Target
from plumbing import fork, fork_target_full


def _serial_copy(
    dst: torch.Tensor, src: torch.Tensor, _quiet=np.errstate(all="ignore")  # BUG: made once, at definition
) -> torch.Tensor:
    """``dst.copy_(src)`` on the calling thread alone (see the reference's docstring)."""
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():  # noqa: F821
        return dst.copy_(src)
    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:  # noqa: F821
        with _quiet:  # BUG: the same errstate object entered on every call
            np.copyto(dst.numpy(), src.numpy(), casting="unsafe")
        return dst
    _copy_in_pieces(dst, src)  # noqa: F821
    return dst


def target() -> Target:
    return fork_target_full("b01_errstate_hoisted_default_arg", fork("b01", h2d={"_serial_copy": _serial_copy}))
