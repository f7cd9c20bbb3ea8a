"""b12 (CPU-visible, buffer.py ``CpuGpuBuffer.np``): reading ``.np`` without numpy raises ``RuntimeError``.

What changed: the property raises ``RuntimeError(...)`` instead of ``AttributeError(...)``
when the buffer was built with ``with_numpy=False``.

Why an engineer would write it: raising ``AttributeError`` from a property is a known trap
(it is swallowed by ``__getattr__`` machinery and reads like a typo), and "the attribute
exists, the buffer was just configured without numpy" sounds like a runtime state error.

Promise broken: docstring ("np (numpy.ndarray): view of cpu (AttributeError when
with_numpy=False)", property: "AttributeError if built with with_numpy=False"); contracts.md
buffer: "with ``with_numpy=False``, reading ``.np`` raises ``AttributeError``, as vLLM
documents". Engines probe with ``hasattr(buf, "np")`` / ``getattr(buf, "np", None)``: the
reference answers ``False`` / ``None``, the bug raises out of ``hasattr``.

Smallest input: ``hasattr(CpuGpuBuffer(1, dtype=torch.int32, device="cpu", with_numpy=False), "np")``.
Reference: ``False``. Bug: ``RuntimeError: this CpuGpuBuffer was created with with_numpy=False ...``.
"""

from __future__ import annotations

import numpy as np
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import CpuGpuBuffer

from ._common import buffer_utils_ns, fork, make_target


class BuggyCpuGpuBuffer(CpuGpuBuffer):
    @property
    def np(self) -> np.ndarray:
        """numpy view of ``.cpu`` (same memory); AttributeError if built with ``with_numpy=False``."""
        if self._np is None:
            # BUG: RuntimeError, not AttributeError: hasattr()/getattr(default) no longer answer "absent"
            raise RuntimeError("this CpuGpuBuffer was created with with_numpy=False and has no .np view")
        return self._np


def target() -> Target:
    f = fork("b12")
    return make_target(
        "b12_buffer_np_runtimeerror",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=BuggyCpuGpuBuffer,
        buffer_utils=buffer_utils_ns(),
    )
