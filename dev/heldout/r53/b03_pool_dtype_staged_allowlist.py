"""b03 (CPU): ``UvaBufferPool`` accepts only the staged-write dtypes (int32, int64, float32).

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.__init__`` (and ``UvaBackedTensor``, which builds a pool).

Change: the dtype check copied from ``StagedWriteTensor`` ("the pools carry the same index
tables as the staged writes")::

    self.dtype = _dtype(dtype)                                         # reference
    self.dtype = _dtype(dtype, STAGED_WRITE_DTYPES)                    # bug

Pools of int32, int64 and float32 (the engine's usual ones) behave as the reference. A pool of
any other dtype (bool masks, int16/uint8 token tables, float16/bfloat16 values, float64) is
refused with ``ValueError: Unsupported dtype ...``; so is a ``UvaBackedTensor`` of those dtypes.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool``: "Args: ... dtype: the element dtype"
and "Raises: TypeError, ValueError: a bad ``size``, ``dtype`` or ``max_concurrency``" (only
``StagedWriteTensor`` documents an allow-list: "dtype: one of :data:`STAGED_WRITE_DTYPES`");
vLLM 0.33.0's ``UvaBufferPool`` takes any torch dtype.

Smallest input: ``UvaBufferPool(4, torch.bool).copy_to_uva([True, False])``.
Reference: ``tensor([True, False])``. Bug: ``ValueError: Unsupported dtype torch.bool: should be one of [...]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def __init__(self: Any, size: int | Sequence[int], dtype: torch.dtype, max_concurrency: int | None = None) -> None:
    if max_concurrency is None:
        max_concurrency = DEFAULT_MAX_CONCURRENCY  # noqa: F821  (the reference module's globals)
    if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int):
        raise TypeError(f"max_concurrency must be an int, got {type(max_concurrency).__name__}")
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
    self.size = size
    self.dtype = _dtype(dtype, STAGED_WRITE_DTYPES)  # noqa: F821  BUG (r53 b03): the staged-write allow-list
    self.max_concurrency = max_concurrency
    self._shape = _shape(size)  # noqa: F821
    self._buffer_cls = UvaBuffer if uva_available() else NonUvaBuffer  # noqa: F821
    self._uva_bufs = [self._buffer_cls(self._shape, self.dtype) for _ in range(max_concurrency)]
    self._curr = 0
    self._retired = []


def target() -> Target:
    f = fork("b03")
    return make_target(
        "b03_pool_dtype_staged_allowlist",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03", methods={"UvaBufferPool": {"__init__": __init__}}),
    )
