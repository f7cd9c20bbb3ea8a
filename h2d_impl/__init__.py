"""h2d_impl: the reference implementation of vLLM's host-to-device copy utilities.

Public API:
    - :func:`async_tensor_h2d`: list / ndarray / CPU tensor -> device tensor through a
      pinned staging buffer with a non_blocking copy.
    - :func:`async_tensor_h2d_cpu`: the CPU-platform variant (host memory target).
    - :func:`async_tensor_h2d_pipelined`: opt-in chunked staging for large payloads.
    - :class:`CpuGpuBuffer`: pinned ``.cpu`` + ``.gpu`` + ``.np`` with row copies.
    - :func:`pin_memory_available`: whether pinned host memory can be allocated.
"""

from ._host import SUPPORTED_DTYPES, pin_memory_available
from .buffer import CpuGpuBuffer
from .h2d import async_tensor_h2d, async_tensor_h2d_cpu, async_tensor_h2d_pipelined

__all__ = [
    "SUPPORTED_DTYPES",
    "CpuGpuBuffer",
    "async_tensor_h2d",
    "async_tensor_h2d_cpu",
    "async_tensor_h2d_pipelined",
    "pin_memory_available",
]

__version__ = "0.1.0"
