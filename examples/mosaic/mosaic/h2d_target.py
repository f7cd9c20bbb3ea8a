"""mosaic's adapter for the h2d-contracts kit (``--h2d-impl mosaic.h2d_target:target``)."""

from __future__ import annotations

from h2d_contracts.contracts import Target

import mosaic
from mosaic import h2d


def target() -> Target:
    return Target(
        name="mosaic",
        async_tensor_h2d=h2d.async_tensor_h2d,
        buffer_cls=h2d.CpuGpuBuffer,
        cpu_variant=h2d.async_tensor_h2d_cpu,
        capabilities=frozenset({"out", "buffer", "cpu-variant", "cuda"}),
        pin_memory_available=h2d.is_pin_memory_available,
        version=mosaic.__version__,
        notes="mosaic.h2d, the engine's own helpers",
    )
