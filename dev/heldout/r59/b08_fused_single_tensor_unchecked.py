"""b08 (CPU): the fused writer checks its pointer and stride tables only when it applies two or more tensors.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter.apply``.

Change: the table checks guarded by the tensor count ("the tables only say which tensor is which; with one tensor
there is nothing to mix up, and vLLM's block table takes the fused path only with several KV-cache groups: skip
the host read of the tables")::

    ptrs, strides = self._read_tables(output_ptrs, output_strides)                       # reference
    if ptrs != [t.gpu.data_ptr() for t in tensors]: raise ValueError(...)
    if strides != [t.gpu.stride(0) for t in tensors]: raise ValueError(...)

    if len(tensors) > 1:                                                                  # bug
        ptrs, strides = self._read_tables(output_ptrs, output_strides)
        if ptrs != [...]: raise ValueError(...)
        if strides != [...]: raise ValueError(...)

A size-1 boundary: the engineer pictured the tables as a permutation, but they are also the kernel's addresses and
row strides. With one tensor, a pointer table naming another tensor's ``.gpu`` (a table built before the tensor's
``.gpu`` was replaced, or for another group), an empty table, a table of two entries or a wrong row stride are all
accepted; vLLM's kernel would store through them (the reference writes by tensor object, so the writes still land
in the tensor and nothing is refused). Model Runner V2 with one KV-cache group per pipeline stage, or a test of
the fused path with one tensor, meets it.

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter``: "Raises: ValueError: ``output_ptrs``/
``output_strides`` disagree with ``tensors``; nothing written"; docs/contracts.md, fused-writes: "A fused apply that
cannot be done whole is refused before any tensor is written (... pointer tables swapped, a row stride wrong, a
pointer or stride table one entry short ... or one entry long ...)".

Smallest input: ``a = StagedWriteTensor(1, torch.int32, 'cpu'); a.stage_write_elem(0, 5);
FusedStagedWriter('cpu', 1).apply([a], torch.zeros(0, dtype=torch.uint64), torch.zeros(0, dtype=torch.int64));
a.gpu``.
Reference: ``ValueError: output_ptrs must hold each tensor's .gpu.data_ptr() ...``, ``a.gpu == [0]``, the write
still staged. Bug: accepted, ``a.gpu == [5]``, nothing staged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _converted, _write)


def apply(self: Any, tensors: Sequence[Any], output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
    """Apply and clear the staged writes of ``tensors`` (ValueError naming the argument when the tables disagree)."""
    if len(tensors) > 1:  # BUG (r59 b08): "one tensor: nothing to mix up", so its tables are never checked
        ptrs, strides = self._read_tables(output_ptrs, output_strides)
        if ptrs != [t.gpu.data_ptr() for t in tensors]:
            raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
        if strides != [t.gpu.stride(0) for t in tensors]:
            raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)
    for t in tensors:
        t.clear_staged_writes()


def target() -> Target:
    f = fork("b08")
    return make_target(
        "b08_fused_single_tensor_unchecked",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b08", methods={"FusedStagedWriter": {"apply": apply}}),
    )
