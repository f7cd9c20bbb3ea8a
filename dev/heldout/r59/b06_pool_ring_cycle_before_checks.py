"""b06 (CPU): the pool's round robin is an ``itertools.cycle`` drawn from at the top of ``copy_to_uva``.

Where: ``h2d_impl/buffer_utils.py::UvaBufferPool.__init__`` (the ring) and ``UvaBufferPool.copy_to_uva`` (every
step: ``copy_to_uva``, ``copy_to_gpu``, every ``UvaBackedTensor`` refresh).

Change: the index arithmetic replaced by an iterator ("a ring is a cycle: no modulo, no cursor to keep in sync")::

    self._curr = 0                                                   # reference (__init__)
    nxt = (self._curr + 1) % self.max_concurrency                    # reference (copy_to_uva, after the checks)

    self._ring = itertools.cycle(range(max_concurrency))             # bug (__init__)
    next(self._ring)  # slot 0 is the current one, as _curr = 0
    nxt = next(self._ring)                                           # bug (copy_to_uva, first line)

The reference computes the next slot after every check and commits it (``self._curr = nxt``) only once the step
is written. ``next()`` on an iterator is a commit: drawn first, the slot is consumed by a step that is then refused
(rows of another shape, a tuple, a tensor not on the host, an int past the dtype). A refused call takes a slot, so
the next accepted step lands one slot early, in the slot a reader of ``max_concurrency - 1`` steps ago still reads.

Promise broken: h2d_impl/buffer_utils.py ``UvaBufferPool``: "A reader of that view sees its data until
``max_concurrency`` more calls have come"; docs/contracts.md, pool: "a refused call takes no slot, so readers are
retired ``max_concurrency`` *accepted* calls later".

Smallest input: ``p = UvaBufferPool(1, torch.int32, max_concurrency=2); a = p.copy_to_uva([1]);
p.copy_to_uva([[9]])`` (refused: ``ValueError``) ``; p.copy_to_uva([2]); a``.
Reference: ``tensor([1])``. Bug: ``tensor([2])`` (the step after the refusal wrote a's slot).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: DEFAULT_MAX_CONCURRENCY, _dtype, _shape, UvaBuffer, ...;
# itertools is bound into them by bu_fork's names)


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
    self._uva_bufs = [self._buffer_cls(self._shape, self.dtype) for _ in range(max_concurrency)]
    self._ring = itertools.cycle(range(max_concurrency))  # BUG (r59 b06): the ring as an iterator
    next(self._ring)  # slot 0 is the current one (as _curr = 0)
    self._curr = 0
    self._retired: list[tuple[Any, Any]] = []


def copy_to_uva(self: Any, x: Any) -> torch.Tensor:
    """Write ``x`` into the next slot and return its view of ``len(x)`` rows."""
    nxt = next(self._ring)  # BUG (r59 b06): drawn (committed) before the checks: a refused call consumes a slot
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
    buf = self._uva_bufs[nxt]
    if n > buf.cpu.shape[0]:
        capacity = 1 << (n - 1).bit_length()
        grown = self._buffer_cls((capacity, *buf.cpu.shape[1:]), self.dtype)
        self._retire(buf)
        buf = self._uva_bufs[nxt] = grown
    dst: Any = buf.cpu if isinstance(x, torch.Tensor) else buf.np
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x.is_neg() or x.is_conj():
            x = x.resolve_neg().resolve_conj()
    dst[:n] = x
    self._curr = nxt
    return buf.uva(n)


def target() -> Target:
    f = fork("b06")
    return make_target(
        "b06_pool_ring_cycle_before_checks",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork(
            "b06",
            names={"itertools": itertools},
            methods={"UvaBufferPool": {"__init__": __init__, "copy_to_uva": copy_to_uva}},
        ),
    )
