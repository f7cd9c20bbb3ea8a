"""b07 (CPU): flat lists of Python complex numbers (no ``dtype=``, no ``out=``) are refused with ``TypeError``.

Where: h2d_impl/_host.py, ``_FLAT_KINDS`` (the table of the flat-list fast path, read by ``_flat_list``).
Change: the table gains ``complex: (np.dtype(np.complex128), None)``.
Why plausible: the fast path serves ``int``, ``float`` and ``bool`` lists; extending it to complex
    lists copies the ``float`` row, whose ``None`` means "torch's default dtype". For ``float``
    that is right; for ``complex`` the default *real* dtype comes back (``spec[1] or
    torch.get_default_dtype()``), where ``torch.tensor`` infers the default complex dtype.
Promise broken: docs/contracts.md values: "Lists follow ``torch.tensor``'s dtype inference";
    as_source_tensor's docstring: "complex -> the default complex dtype"; README dtype: "else
    the data's own".
Smallest input:
    async_tensor_h2d([1 + 2j, 3j], device="cpu")
Reference: ``tensor([1.+2.j, 0.+3.j])`` (complex64). Bug: ``TypeError: data is complex
    (torch.complex128) but dtype=torch.float32 is not``. With ``dtype=`` or ``out=`` given, or a
    nested or mixed complex list, the result is right.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _host

from ._common import fork, fork_target_full

_FLAT_KINDS = dict(_host._FLAT_KINDS)
_FLAT_KINDS[complex] = (np.dtype(np.complex128), None)  # BUG: None = the default *real* dtype in _flat_list


def target() -> Target:
    return fork_target_full("b07_flat_complex_default_real", fork("b07", _host={"_FLAT_KINDS": _FLAT_KINDS}))
