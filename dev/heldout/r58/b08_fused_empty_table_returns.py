"""b08 (CPU): ``FusedStagedWriter.apply`` returns at once when the pointer table is empty.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter.apply``.

Change: an early exit for models without KV-cache groups ("an attention-free model has no block tables: its
pointer table is empty, so there is nothing to apply; skip the table read")::

    ptrs, strides = self._read_tables(output_ptrs, output_strides)                  # reference (first line)

    if not output_ptrs.numel():                                                      # bug (inserted first)
        return
    ptrs, strides = self._read_tables(output_ptrs, output_strides)

The emptiness that means "nothing to apply" is that of ``tensors`` (or of their staged writes), not of the table
that describes them. With tensors given and an empty table (a table built before the tensors were registered,
or sliced one entry short for a single tensor) the reference refuses (``ValueError`` naming ``output_ptrs``);
the bug returns as if it had applied: nothing written, nothing cleared, no error. The runner goes on with stale
block tables, and the writes surface at some later apply.

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter``: "Raises: ValueError: ``output_ptrs``/``output_strides``
disagree with ``tensors``; nothing written"; ``apply``: "Apply and clear the staged writes of ``tensors``";
docs/contracts.md, fused-writes: "a pointer or stride table one entry short ... (``ValueError`` naming the table
that is wrong)".

Smallest input: ``a = StagedWriteTensor(1, torch.int32, 'cpu'); a.stage_write_elem(0, 5);
FusedStagedWriter('cpu', 1).apply([a], torch.zeros(0, dtype=torch.uint64), torch.zeros(0, dtype=torch.int64))``.
Reference: ``ValueError: output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors``.
Bug: returns None; ``a.gpu == [0]``, the write still staged.
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
    if not output_ptrs.numel():  # BUG (r58 b08): "no KV-cache groups": the tensors' own writes are neither checked nor applied
        return
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
        "b08_fused_empty_table_returns",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b08", methods={"FusedStagedWriter": {"apply": apply}}),
    )
