"""b13 (CPU): ``CpuGpuBuffer.np`` is ``None`` instead of raising ``AttributeError`` when built ``with_numpy=False``.

The change: the ``np`` property returns ``self._np`` without its ``if self._np is None: raise
AttributeError(...)``.

Why an engineer writes it: a property that only returns an attribute looks like overhead
on a hot accessor (``.np`` is read for every row written); "``None`` says the same thing".

What breaks: the documented attribute contract (``CpuGpuBuffer``'s docstring, which
docs/reference.md calls the full specification: "np (numpy.ndarray): view of ``cpu``
(AttributeError when ``with_numpy=False``)"). ``CpuGpuBuffer(2, dtype=torch.int32,
device="cpu", with_numpy=False).np`` is ``None``; code that probes
``hasattr(buf, "np")`` now takes a buffer without numpy for one with it and fails later
with a ``TypeError`` on ``None[...]``.
"""

from __future__ import annotations

from h2d_contracts.h2d_impl import buffer as _buffer

from ._common import make_target, rebind


def np(self):
    """numpy view of ``.cpu`` (same memory); AttributeError if built with ``with_numpy=False``."""
    return self._np  # BUG: the `if self._np is None: raise AttributeError(...)` guard was dropped


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    np = property(rebind(np, _buffer))


def target():
    return make_target("b13-buffer-np-none", buffer_cls=CpuGpuBuffer)
