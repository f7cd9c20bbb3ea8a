"""mosaic: a small inference engine's host-side utilities."""

from .h2d import CpuGpuBuffer, async_tensor_h2d, async_tensor_h2d_cpu, is_pin_memory_available

__all__ = ["CpuGpuBuffer", "async_tensor_h2d", "async_tensor_h2d_cpu", "is_pin_memory_available"]

__version__ = "0.3.0"
