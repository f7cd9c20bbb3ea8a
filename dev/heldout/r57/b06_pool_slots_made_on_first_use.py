"""b06 (CPU): a pool's slots are made on first use, in whatever autograd mode that use runs under.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.__init__`` (no slots made) and ``UvaBufferPool.copy_to_uva`` (a slot
made when the ring first reaches it).

Change: pinned memory saved at start-up ("a pool of depth 8 pins 8 slots at construction, and every
``StagedWriteTensor``/``FusedStagedWriter`` of vLLM makes three or four pools: make a slot when the ring first
needs it")::

    self._uva_bufs = [self._buffer_cls(self._shape, self.dtype) for _ in range(max_concurrency)]  # reference

    self._uva_bufs = [None] * max_concurrency                                                   # bug (__init__)
    ...
    buf = self._uva_bufs[nxt]                                                                   # bug (copy_to_uva)
    if buf is None:
        buf = self._uva_bufs[nxt] = self._buffer_cls(self._shape, self.dtype)

A slot lives as long as the pool, but it is now made by the call that first reaches it, in that call's
autograd mode. Model Runner V2 builds its pools at start-up (outside any mode) and runs its steps under
``torch.inference_mode()``: the slots a step makes are inference tensors, and inference mode is per thread.
The first call outside the mode (another thread, a warm-up or profiling run outside ``execute_model``)
that reaches such a slot fails: ``NonUvaBuffer.uva(n)``'s copy into the twin, or a tensor step's write into
``.cpu``, is an in-place update of an inference tensor. The reference makes every slot at construction, in
the constructor's mode.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool.copy_to_uva``: "Write ``x`` into the next slot and return its
view of ``len(x)`` rows. Raises: TypeError ... ValueError: ``x``'s trailing shape differs from a slot's" (no other
failure); docs/reference.md, Calling contexts: "``torch.inference_mode()``: the same values"; docs/contracts.md,
Model Runner V2: "Engines make these objects at start-up, often under a default device, and use them under
``torch.inference_mode()``".

Smallest input: ``p = UvaBufferPool(2, torch.int32, max_concurrency=1)``; ``with torch.inference_mode():
p.copy_to_uva([1, 2])``; then ``p.copy_to_uva([3, 4])`` outside the mode.
Reference: ``tensor([3, 4], dtype=torch.int32)``. Bug: ``RuntimeError: Inplace update to inference tensor outside
InferenceMode is not allowed ...``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: DEFAULT_MAX_CONCURRENCY, _dtype, _shape, uva_available, the classes)


def __init__(self: Any, size: Any, dtype: torch.dtype, max_concurrency: int | None = None) -> None:
    if max_concurrency is None:
        max_concurrency = DEFAULT_MAX_CONCURRENCY
    if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int):
        raise TypeError(f"max_concurrency must be an int, got {type(max_concurrency).__name__}")
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
    self.size = size
    self.dtype = _dtype(dtype)
    self.max_concurrency = max_concurrency
    self._shape = _shape(size)
    self._buffer_cls = UvaBuffer if uva_available() else NonUvaBuffer
    # slots made when the ring first reaches them: most slots of a deep pool are never used
    self._uva_bufs: list[Any] = [None] * max_concurrency  # BUG (r57 b06): made later, in the caller's mode
    self._curr = 0
    self._retired: list[tuple[Any, Any]] = []


def copy_to_uva(self: Any, x: torch.Tensor | np.ndarray | list[Any]) -> torch.Tensor:
    """Write ``x`` into the next slot and return its view of ``len(x)`` rows."""
    if isinstance(x, torch.Tensor):
        if x.device.type != "cpu":
            raise TypeError(f"x must be on the host, got a tensor on {x.device}")
        shape = tuple(x.shape)
    elif isinstance(x, (np.ndarray, list)):
        shape = np.shape(x)
    else:
        raise TypeError(f"x must be a tensor, ndarray or list, got {type(x).__name__}")
    if len(shape) != len(self._shape) or tuple(shape[1:]) != self._shape[1:]:
        raise ValueError(f"x has shape {tuple(shape)}; a slot holds rows of shape {self._shape[1:]}")
    n = shape[0]
    nxt = (self._curr + 1) % self.max_concurrency
    buf = self._uva_bufs[nxt]
    if buf is None:  # BUG (r57 b06): the slot is made now, under this call's autograd mode
        buf = self._uva_bufs[nxt] = self._buffer_cls(self._shape, self.dtype)
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x.detach() if isinstance(x, torch.Tensor) else x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b06")
    return make_target(
        "b06_pool_slots_made_on_first_use",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06", methods={"UvaBufferPool": {"__init__": __init__, "copy_to_uva": copy_to_uva}}),
    )
