"""tinyengine: a toy serving engine's host-to-device input preparation."""

from .h2d import CpuGpuBuffer, async_tensor_h2d

__all__ = ["CpuGpuBuffer", "async_tensor_h2d"]
