"""b08 (CPU): ``UvaBufferPool.copy_to_uva`` refuses a step of more than 65,536 rows instead of growing its slot to it.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.copy_to_uva`` (before the growth branch).

Change: a guard against runaway growth ("a slot that grows is never shrunk and, with UVA, is pinned
memory: a step of more than 64 Ki rows is a caller's mix-up, a token count passed where a request
count was meant; refuse it before pinning the memory")::

    if n > buf.cpu.shape[0]:                                                      # reference
        capacity = 1 << (n - 1).bit_length()

    if n > _MAX_SLOT_ROWS:                                                       # bug (_MAX_SLOT_ROWS = 1 << 16)
        raise ValueError(f"x has {n} rows; a pool slot grows to at most {_MAX_SLOT_ROWS}")
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()

Every step of up to 65,536 rows behaves as before, growth included. Larger steps are normal
traffic: in vLLM's Model Runner V2 the pools behind staged writes to UVA tensors carry a step's
token contents (``all_token_ids``: a 128 Ki-token prompt is one step of 128 Ki rows), and a pool of
steps sized by tokens, not requests, passes 64 Ki on any long prefill. Such a step is now refused,
and a ``UvaBackedTensor`` of more than 65,536 rows cannot be built (its first refresh is one).

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool``: "Round-robin slots ... that grow their first
dimension" and "``copy_to_uva(x)`` writes ``x`` into the next slot (growing it to the next power of two
rows when ``len(x)`` exceeds it)"; the refusals its docstring lists are "a bad ``size``, ``dtype`` or
``max_concurrency``" and, for ``copy_to_uva``, ``x`` of another kind or another trailing shape.

Smallest input: ``UvaBufferPool(1, torch.int32).copy_to_uva(np.arange(65537, dtype=np.int32))``.
Reference: the 65,537 values (``int32``, shape ``(65537,)``). Bug: ``ValueError: x has 65537 rows; a pool slot
grows to at most 65536`` (also ``UvaBackedTensor(65537, torch.int32)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals, and _MAX_SLOT_ROWS bound below)


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
    if n > _MAX_SLOT_ROWS:  # BUG (r56 b08): a hard cap on growth that the pool does not have
        raise ValueError(f"x has {n} rows; a pool slot grows to at most {_MAX_SLOT_ROWS}")
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b08")
    return make_target(
        "b08_pool_step_rows_capped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork(
            "b08", names={"_MAX_SLOT_ROWS": 1 << 16}, methods={"UvaBufferPool": {"copy_to_uva": copy_to_uva}}
        ),
    )
