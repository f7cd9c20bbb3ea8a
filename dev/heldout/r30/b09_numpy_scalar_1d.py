"""A bare numpy scalar (``np.float32(1.5)``, ``np.int64(3)``) becomes a 1-element array: shape ``(1,)``, not ``()``.

``as_source_tensor`` turns a numpy scalar into an array with ``np.atleast_1d(data)``
(the author's belief: ``torch.from_numpy`` wants at least one dimension) instead of
``np.asarray(data)``. The dtype is kept, the values are right, but the result has shape
``(1,)`` where a scalar's shape is ``()``; with ``out=`` of shape ``()`` the call is
refused with ``ValueError`` (shape mismatch) and with an ``out`` of shape ``(1,)`` it is
accepted where the reference refuses it. Python scalars and 0-d arrays are unaffected.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import _host, h2d
from h2d_contracts.h2d_impl._host import _numpy_to_tensor

from ._common import make_target
from ._patch import entry_points, rebind

_reference_as_source_tensor = _host.as_source_tensor


def as_source_tensor(data: Any, *, infer_dtype: bool = True) -> tuple[torch.Tensor, torch.dtype]:
    """The reference's ``as_source_tensor`` with numpy scalars wrapped by ``np.atleast_1d``."""
    if isinstance(data, np.generic):
        source = _numpy_to_tensor(np.atleast_1d(data))  # BUG: np.asarray(data) keeps the scalar's shape ()
        return source, source.dtype
    return _reference_as_source_tensor(data, infer_dtype=infer_dtype)


def target():
    fn, cpu = entry_points(prepare=rebind(h2d._prepare, as_source_tensor=as_source_tensor))
    return make_target("b09-numpy-scalar-1d", fn=fn, cpu_variant=cpu)
