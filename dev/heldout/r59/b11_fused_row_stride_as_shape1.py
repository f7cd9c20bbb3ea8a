"""b11 (CPU): the fused writer checks the stride table against each tensor's ``shape[1]``, not its ``stride(0)``.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter.apply`` (the stride-table check).

Change: the expected row stride spelled from the shape ("block tables are ``(max_num_reqs, max_num_blocks)``: a row
is ``shape[1]`` elements, and a 1-D tensor's row is one element; no stride query per tensor")::

    if strides != [t.gpu.stride(0) for t in tensors]:                                       # reference

    if strides != [t.gpu.shape[1] if t.gpu.dim() > 1 else 1 for t in tensors]:             # bug

The two agree for 1-D tensors and for 2-D tensors with elements, the shapes the engineer had in mind. They differ
for a 3-D tensor (a row of ``(r, a, b)`` is ``a * b`` elements, ``stride(0)``; ``shape[1]`` is ``a``) and for a
zero-width 2-D tensor (``shape[1]`` is 0, torch's ``stride(0)`` is 1): a correct table, built as vLLM builds it
(``[b.gpu.stride(0) for b in ...]``), is refused with ``ValueError`` naming ``output_strides``, and a table of
``shape[1]`` values, wrong for the kernel, is accepted.

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter``: "``output_ptrs``/``output_strides`` (vLLM's kernel
arguments: each ``.gpu``'s address and row stride) are checked against the tensors"; docs/contracts.md,
staged-write: "rows of 1 to 2,100 elements (a 3-D tensor's row is all its trailing elements, as vLLM's
``.gpu.stride(0)``)"; fused-writes: "leaves every tensor bit-identical to a twin given its own ``apply_write()``".

Smallest input: ``a = StagedWriteTensor((1, 2, 2), torch.int32, 'cpu'); a.stage_write(0, 3, [5]);
FusedStagedWriter('cpu', 1).apply([a], P, S)`` with ``P = [a.gpu.data_ptr()]`` (uint64), ``S = [a.gpu.stride(0)]``
(``[4]``, int64); ``a.gpu``.
Reference: ``[[[0, 0], [0, 5]]]``. Bug: ``ValueError: output_strides must hold each tensor's .gpu.stride(0) ...``,
``a.gpu`` unchanged (with ``S = [2]``: refused by the reference, written by the bug).
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
    ptrs, strides = self._read_tables(output_ptrs, output_strides)
    if ptrs != [t.gpu.data_ptr() for t in tensors]:
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    # BUG (r59 b11): the row stride as shape[1] (right for 1-D and non-empty 2-D tensors only)
    if strides != [t.gpu.shape[1] if t.gpu.dim() > 1 else 1 for t in tensors]:
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)
    for t in tensors:
        t.clear_staged_writes()


def target() -> Target:
    f = fork("b11")
    return make_target(
        "b11_fused_row_stride_as_shape1",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b11", methods={"FusedStagedWriter": {"apply": apply}}),
    )
