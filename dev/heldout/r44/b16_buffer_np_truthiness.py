"""b16 (CPU): ``CpuGpuBuffer.np`` tests the array's truth value instead of ``is None``.

Where: ``buffer.CpuGpuBuffer.np`` (the property every engine uses to fill the host rows).

The change::

    if self._np is None:
        raise AttributeError("this CpuGpuBuffer was created with with_numpy=False and has no .np view")
    ->
    if not self._np:
        raise AttributeError(...)

Why an engineer writes it: ``if not x`` is the everyday Python idiom for "x is unset",
and ``self._np`` is either ``None`` or "the view"; ``with_numpy=False`` still raises
``AttributeError`` as before, so the one test of that branch passes. A numpy array's
truth value is its elements': for more than one element numpy raises ``ValueError:
The truth value of an array with more than one element is ambiguous``, and a
one-element buffer holding 0 (every new buffer: zero-initialised) claims to have no
``.np`` at all.

Promise broken: ``CpuGpuBuffer`` docstring: "with_numpy: also expose ``.np``, a
``numpy.ndarray`` sharing memory with ``.cpu``", "np (numpy.ndarray): view of ``cpu``
(AttributeError when ``with_numpy=False``)"; docs/reference.md *CpuGpuBuffer*: "``.np`` a
view of ``.cpu``"; README ``buffer``: "``.np`` aliases ``.cpu``".

Smallest input: ``CpuGpuBuffer(2, dtype=torch.int32, device="cpu").np``.
Reference: ``array([0, 0], dtype=int32)``. Bug: ``ValueError: The truth value of an array
with more than one element is ambiguous. Use a.any() or a.all()``; and
``CpuGpuBuffer(1, dtype=torch.int32, device="cpu").np``: bug ``AttributeError``.
"""

from __future__ import annotations

import numpy as np

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer

from ._bu import bu_fork
from ._common import fork, make_target, rebind


def _np(self) -> np.ndarray:
    """numpy view of ``.cpu`` (same memory); AttributeError if built with ``with_numpy=False``."""
    if not self._np:  # BUG: the array's truth value, not "is None"
        raise AttributeError("this CpuGpuBuffer was created with with_numpy=False and has no .np view")
    return self._np


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    __doc__ = _buffer.CpuGpuBuffer.__doc__
    np = property(rebind(_np, _buffer))


def target() -> Target:
    f = fork("b16")
    return make_target(
        "b16_buffer_np_truthiness",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b16"),
    )
