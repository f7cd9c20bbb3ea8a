"""The engine's adapter for h2d-contracts: ``--h2d-impl tinyengine.h2d_target:target``."""

from __future__ import annotations

import tinyengine
from h2d_contracts.contracts import Target
from tinyengine import h2d


def target() -> Target:
    """What the kit tests: the engine's functions and what they claim (``capabilities``)."""
    return Target(
        name="tinyengine",
        async_tensor_h2d=h2d.async_tensor_h2d,
        buffer_cls=h2d.CpuGpuBuffer,
        capabilities=frozenset({"out", "buffer", "cuda"}),
        version=getattr(tinyengine, "__version__", "0.1.0"),
        notes="the example engine of h2d-contracts' README",
    )
