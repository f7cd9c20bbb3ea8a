"""b12 (CPU): the numpy route of the host copy sets numpy's error state by hand and restores the state found at import, not the caller's.

Where: ``h2d_impl/h2d.py::_serial_copy`` (its numpy route: host copies of 32,769 elements up to 256 KiB
that numpy casts as torch does; both entry points, lists, arrays and tensors).

Change: a micro-optimisation of the hot mid-sized copy ("``np.errstate`` builds a context manager and a
contextvar token on every call, about a microsecond: set the flags directly and put numpy's settings
back afterwards, read once at import")::

    with np.errstate(all="ignore"):                                              # reference
        np.copyto(dst.numpy(), src.numpy(), casting="unsafe")

    np.seterr(all="ignore")                                                      # bug
    np.copyto(dst.numpy(), src.numpy(), casting="unsafe")
    np.seterr(**_NP_ERRSTATE)          # _NP_ERRSTATE = np.geterr(), at import

The copy's values are the reference's, and a process that never touches numpy's error state sees no
change (the import-time state is its state). A caller that has chosen its own (``np.seterr(all="raise")``
to catch NaNs in its preprocessing, or a call made inside ``with np.errstate(...)``) has it reset to
numpy's defaults by the first mid-sized copy: ``divide``, ``over`` and ``invalid`` back to ``warn``,
``under`` to ``ignore``, for the rest of the process or of the ``with`` block.

Promise broken: docs/reference.md, Calling contexts: "Process-wide state: a call changes none (contract
``side-effects``): warnings are filtered inside ``warnings.catch_warnings()`` only, numpy's error state inside
``np.errstate``"; docs/contracts.md, side-effects: "Every call, valid or failing ... leaves the process-wide
state as it found it ... numpy: error state, print options, buffer size, ...".

Smallest input: ``with np.errstate(all='raise'): async_tensor_h2d(np.zeros(40000, dtype=np.int32), device='cpu');
np.geterr()`` (read inside the block).
Reference: ``{'divide': 'raise', 'over': 'raise', 'under': 'raise', 'invalid': 'raise'}``.
Bug: ``{'divide': 'warn', 'over': 'warn', 'under': 'ignore', 'invalid': 'warn'}``.
"""

from __future__ import annotations

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals, and _NP_ERRSTATE bound below)


def _serial_copy(dst: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    """``dst.copy_(src)`` into a staging tensor of the reference's own, on the calling thread alone; returns ``dst``."""
    if dst.numel() <= _TORCH_GRAIN or src.is_conj() or src.is_neg() or src._is_zerotensor():
        return dst.copy_(src)
    if src.dtype == dst.dtype and src.dtype in _NUMPY_SAME or (src.dtype, dst.dtype) in _NUMPY_CASTS:
        np.seterr(all="ignore")  # a signalling NaN warns in numpy's cast, never in torch's
        np.copyto(dst.numpy(), src.numpy(), casting="unsafe")
        np.seterr(**_NP_ERRSTATE)  # BUG (r56 b12): the state read at import, not the one this call found
        return dst
    _copy_in_pieces(dst, src)
    return dst


def target() -> Target:
    f = fork("b12", h2d={"_serial_copy": _serial_copy, "_NP_ERRSTATE": np.geterr()})
    return make_target(
        "b12_serial_copy_errstate_from_import",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b12"),
    )
