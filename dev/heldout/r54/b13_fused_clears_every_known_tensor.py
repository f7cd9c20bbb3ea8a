"""b13 (CPU): a fused apply clears the staged writes of every tensor the writer has ever applied, not only of those passed.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter.__init__`` and ``apply`` (the clearing).

Change: a cleanup ("a tensor that left the batch must not carry staged writes into a later
apply: the writer remembers its tensors and clears them all")::

    for t in tensors:                                                            # reference
        t.clear_staged_writes()

    self._known.update(tensors)              # a weakref.WeakSet made in __init__ # bug
    for t in self._known:
        t.clear_staged_writes()

Every tensor passed is written and cleared as before. A tensor the writer applied in an earlier
call, not passed now, loses whatever was staged into it since, without it being written: a
later ``apply_write()`` of its own (or a fused apply that includes it) writes nothing. Engines
apply different subsets through one writer (KV-cache groups with and without new blocks).

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter``: "``apply(tensors, output_ptrs,
output_strides)`` leaves every tensor as its own ``apply_write()`` would, and clears the staged
writes of all" (all of ``tensors``); ``StagedWriteTensor``: "``apply_write()`` writes every staged
write into ``.gpu`` ... and clears them".

Smallest input: ``a, b = StagedWriteTensor(2, torch.int32, 'cpu')`` x2; ``w = FusedStagedWriter('cpu', 1)``;
``w.apply([a, b], ptrs(a, b), [1, 1])``; ``b.stage_write_elem(0, 7)``; ``w.apply([a], ptrs(a), [1])``;
``b.apply_write(); b.gpu``.
Reference: ``[7, 0]``. Bug: ``[0, 0]`` (the write to ``b`` dropped by an apply of ``a``).
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Sequence
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: DEFAULT_MAX_CONCURRENCY, _converted, _write)


def __init__(self: Any, device: torch.device | str, max_writes: int, max_concurrency: int | None = None) -> None:
    self.device = torch.device(device)
    try:
        if isinstance(max_writes, bool):
            raise TypeError
        self.max_writes = operator.index(max_writes)
    except TypeError:
        raise TypeError(f"max_writes must be an int, got {type(max_writes).__name__}") from None
    if self.max_writes < 0:
        raise IndexError(f"max_writes={self.max_writes} is negative")
    self.max_concurrency = DEFAULT_MAX_CONCURRENCY if max_concurrency is None else max_concurrency
    self._tables = None
    self._known = weakref.WeakSet()  # the tensors this writer has applied


def apply(self: Any, tensors: Sequence[Any], output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
    ptrs, strides = self._read_tables(output_ptrs, output_strides)
    if ptrs != [t.gpu.data_ptr() for t in tensors]:
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    if strides != [t.gpu.stride(0) for t in tensors]:
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)
    self._known.update(tensors)
    for t in self._known:  # BUG (r54 b13): every tensor ever applied, not only `tensors`
        t.clear_staged_writes()


def target() -> Target:
    f = fork("b13")
    return make_target(
        "b13_fused_clears_every_known_tensor",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork(
            "b13",
            names={"weakref": weakref},
            methods={"FusedStagedWriter": {"__init__": __init__, "apply": apply}},
        ),
    )
