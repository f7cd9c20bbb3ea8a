"""b07 (CPU): the fused apply pairs the converted writes with ``tensors`` instead of the tensors that have writes.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter.apply``.

Change (one name, and the ``strict=`` that would have caught it)::

    for t, (positions, contents) in zip(pending, converted, strict=True):    # reference
    for t, (positions, contents) in zip(tensors, converted):                 # bug

``converted`` holds one entry per tensor *with staged writes* (``pending``). When every tensor
has writes, or only a tail of the list is empty, the two agree and the apply is right. When a
tensor with nothing staged comes before one with writes (a KV-cache group with no new blocks
this step), each conversion is written into the tensor before its own: the writes land in the
wrong tensor (same dtype: silently; another dtype: ``index_copy_`` raises after the writes of
the earlier pairs), and every staged write is cleared anyway.

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter`` docstring: "``apply(tensors,
output_ptrs, output_strides)`` leaves every tensor as its own ``apply_write()`` would";
docs/contracts.md, fused-writes: "A fused apply over tensors some of which have nothing staged
(two or three tensors, each with or without a write) equals their own applies".

Smallest input: ``a = StagedWriteTensor(2, torch.int32, 'cpu'); b = StagedWriteTensor(2, torch.int32, 'cpu');
b.stage_write_elem(1, 7); FusedStagedWriter('cpu', 1).apply([a, b], ptrs, strides)`` with
``ptrs = torch.tensor([a.gpu.data_ptr(), b.gpu.data_ptr()], dtype=torch.uint64)``, ``strides = torch.tensor([1, 1])``.
Reference: ``a.gpu == [0, 0]``, ``b.gpu == [0, 7]``. Bug: ``a.gpu == [0, 7]``, ``b.gpu == [0, 0]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def apply(self: Any, tensors: Sequence[Any], output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
    ptrs, strides = self._read_tables(output_ptrs, output_strides)
    if ptrs != [t.gpu.data_ptr() for t in tensors]:
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    if strides != [t.gpu.stride(0) for t in tensors]:
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]  # noqa: F821 (buffer_utils' globals)
    for t, (positions, contents) in zip(tensors, converted):  # BUG (r52 b07): `zip(pending, converted, strict=True)`
        _write(t.gpu, positions, contents)  # noqa: F821
    for t in tensors:
        t.clear_staged_writes()


def target() -> Target:
    f = fork("b07")
    return make_target(
        "b07_fused_writes_zipped_with_all_tensors",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b07", methods={"FusedStagedWriter": {"apply": apply}}),
    )
