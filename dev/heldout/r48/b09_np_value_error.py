"""b09 (CPU): ``CpuGpuBuffer.np`` of a buffer built with ``with_numpy=False`` raises ``ValueError`` instead of ``AttributeError``.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.np`` (the property).

Change (one line)::

    raise AttributeError("this CpuGpuBuffer was created with with_numpy=False ...")  # reference
    raise ValueError("this CpuGpuBuffer was created with with_numpy=False ...")      # bug: "a wrong value of with_numpy"

A property that raises anything but ``AttributeError`` breaks attribute protocol:
``hasattr(buf, "np")`` and ``getattr(buf, "np", None)`` now raise instead of answering
False / None, as engine code that probes for ``.np`` does.

Promise broken: docs/contracts.md, buffer: "`.np` aliases `.cpu` (with `with_numpy=False`,
reading `.np` raises `AttributeError`, as vLLM documents)"; h2d_impl/buffer.py
``CpuGpuBuffer`` docstring, Attributes: "np (numpy.ndarray): view of ``cpu``
(AttributeError when ``with_numpy=False``)".

Smallest input: ``CpuGpuBuffer(1, dtype=torch.int32, device='cpu', with_numpy=False).np``.
Reference: ``AttributeError`` (``hasattr(buf, 'np')`` is False). Bug: ``ValueError``
(``hasattr`` raises it).
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer
from plumbing import bu_fork, fork, make_target, rebind

def np_property(self) -> np.ndarray:
    """numpy view of ``.cpu`` (same memory); AttributeError if built with ``with_numpy=False``."""
    if self._np is None:  # BUG (r48 b09): ValueError below, not AttributeError
        raise ValueError("this CpuGpuBuffer was created with with_numpy=False and has no .np view")
    return self._np


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    np = property(rebind(np_property, buffer), doc=buffer.CpuGpuBuffer.np.__doc__)


def target() -> Target:
    f = fork("b09")
    return make_target(
        "b09_np_value_error",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b09"),
    )
