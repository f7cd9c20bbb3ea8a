"""b03 (CPU-visible): bool joins the dtypes the serial host copy moves with ``numpy.copyto``.

Where: module constant ``_NUMPY_SAME``, defined in ``h2d_impl/_host.py`` and imported by
``h2d_impl/h2d.py``, where ``_serial_copy`` reads it.

Change: ``_NUMPY_SAME`` gains ``torch.bool`` ("numpy has a bool dtype too; a same-dtype
copy is a memcpy either way").

Why plausible: every other numpy-representable dtype is in the set; bool looks like an
omission. The reference's docstring says why it is not ("a bool byte that is neither 0
nor 1 is read as 1 by torch, kept by numpy"), but only under ``_NUMPY_CASTS``.

Promise broken: README values: "result equals ``data`` converted to the resolved dtype,
bit for bit"; ``_serial_copy`` docstring: "The values are ``copy_``'s". torch's copy of a
bool tensor canonicalises every byte to 0 or 1 (``t.clone()`` does); numpy's copy keeps
the raw byte, so the result holds bool bytes that are neither True's nor False's
(``result.view(torch.uint8)`` shows 2: bytes no torch op produces for a bool).

Smallest input: ``data = torch.full((32769,), 2, dtype=torch.uint8).view(torch.bool)``
(a mask built from a byte buffer), ``async_tensor_h2d(data, device='cpu')``. Only pure
bool copies of 32,769 to 262,144 elements take the serial numpy route.
Reference: every byte of the result is 1 (``data.clone()``'s bytes).
Bug: every byte of the result is 2.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _host as _ref

from ._common import Fork, fork, fork_target_full

_NUMPY_SAME = _ref._NUMPY_SAME | {torch.bool}  # BUG


def _fork() -> Fork:
    return fork("b03", _host={"_NUMPY_SAME": _NUMPY_SAME}, h2d={"_NUMPY_SAME": _NUMPY_SAME})


def target() -> Target:
    return fork_target_full("b03_bool_copied_as_bytes", _fork())
