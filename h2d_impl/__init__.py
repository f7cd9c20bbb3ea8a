"""h2d_impl: the reference implementation of vLLM's host-to-device copy utilities.

Public API:
    - :func:`async_tensor_h2d`: list / ndarray / CPU tensor -> device tensor through a
      pinned staging pool (event-tracked chunks) with non_blocking copies.
    - :func:`async_tensor_h2d_cpu`: the CPU-platform variant (host memory target).
    - :func:`async_tensor_h2d_pipelined`: deprecated alias of :func:`async_tensor_h2d`.
    - :func:`empty_staging_cache`, :func:`staging_stats`: release the staging pool's idle
      chunks (``torch.cuda.empty_cache``-like), read its retained bytes and counters.
    - :class:`CpuGpuBuffer`: pinned ``.cpu`` + ``.gpu`` + ``.np`` with row copies.
    - :func:`pin_memory_available`: whether pinned host memory can be allocated.
    - :mod:`.buffer_utils`: Model Runner V2's transfer utilities (``UvaBuffer``,
      ``NonUvaBuffer``, ``UvaBufferPool``, ``UvaBackedTensor``, ``StagedWriteTensor``,
      ``FusedStagedWriter``), as ``h2d_impl.buffer_utils``.
"""

from . import buffer_utils
from ._host import SUPPORTED_DTYPES, pin_memory_available
from ._staging import empty_staging_cache, staging_stats
from .buffer import CpuGpuBuffer
from .h2d import async_tensor_h2d, async_tensor_h2d_cpu, async_tensor_h2d_pipelined

__all__ = [
    "SUPPORTED_DTYPES",
    "CpuGpuBuffer",
    "async_tensor_h2d",
    "buffer_utils",
    "async_tensor_h2d_cpu",
    "async_tensor_h2d_pipelined",
    "empty_staging_cache",
    "pin_memory_available",
    "staging_stats",
]

__version__ = "0.1.0"
