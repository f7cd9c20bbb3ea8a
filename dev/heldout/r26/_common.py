"""Shared helper: build a Target around the reference with one replaced piece."""

from __future__ import annotations

from h2d_contracts import h2d_impl
from h2d_contracts.contracts import Target

CAPS = frozenset({"out", "buffer", "cpu-variant", "cuda"})


def make_target(name, *, fn=None, buffer_cls=None, cpu_variant=None, notes=""):
    return Target(
        name=f"r26-{name}",
        async_tensor_h2d=fn or h2d_impl.async_tensor_h2d,
        buffer_cls=buffer_cls or h2d_impl.CpuGpuBuffer,
        cpu_variant=cpu_variant or h2d_impl.async_tensor_h2d_cpu,
        capabilities=CAPS,
        pin_memory_available=h2d_impl.pin_memory_available,
        version=h2d_impl.__version__ + "+r26",
        notes=notes,
        empty_cache=h2d_impl.empty_staging_cache,
    )
