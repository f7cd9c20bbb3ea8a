"""Python types are accepted as ``dtype`` (``dtype=float`` is float64), where the contract refuses a non-torch dtype.

"torch takes ``dtype=float``, so do we": both entry points normalise ``dtype`` through
torch (``torch.empty(0, dtype=dtype).dtype``) before validating it, so ``float``, ``int``,
``bool`` and ``complex`` become float64, int64, bool and complex128. Documented: ``dtype``
must be a torch dtype or None, anything else ``TypeError`` naming ``dtype``
(``async_tensor_h2d([1], dtype=float, device="cpu")`` raises). numpy dtypes and strings
are still refused (torch refuses them too).
"""

from __future__ import annotations

import torch

from h2d_contracts.h2d_impl import h2d

from ._common import make_target

_reference_main = h2d.async_tensor_h2d
_reference_cpu = h2d.async_tensor_h2d_cpu


def _normalise(dtype):
    # BUG: torch maps the Python types bool/int/float/complex to dtypes; the contract refuses them
    return torch.empty(0, dtype=dtype).dtype if isinstance(dtype, type) and dtype in (bool, int, float, complex) else dtype


def async_tensor_h2d(data, device=None, dtype=None, out=None):
    return _reference_main(data, device=device, dtype=_normalise(dtype), out=out)


def async_tensor_h2d_cpu(data, device=None, dtype=None, out=None):
    return _reference_cpu(data, device=device, dtype=_normalise(dtype), out=out)


def target():
    return make_target("b15-python-type-dtypes", fn=async_tensor_h2d, cpu_variant=async_tensor_h2d_cpu)
