"""b08 (CPU): the fused apply's stride-table refusal names ``output_ptrs`` (a copy-pasted message).

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter.apply``.

Change (the second check's message, copied from the first and edited halfway)::

    raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")   # reference
    raise ValueError("output_ptrs must hold each tensor's .gpu.stride(0), in the order of tensors")      # bug

The refusal itself is unchanged (same type, same moment, nothing written, the writes stay
staged); only the argument the message names is wrong: a caller whose stride table is off (a
row stride in bytes, a tensor made with another row length) is sent to check its pointer table,
which is right.

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter.apply`` docstring: "(ValueError naming
the argument when the tables disagree)"; docs/reference.md, "Where the reference is stricter":
"bounds are exceptions naming the argument"; docs/contracts.md, fused-writes: "a row stride wrong
... (``ValueError`` naming ``output_ptrs`` or ``output_strides``)".

Smallest input: ``t = StagedWriteTensor((2, 3), torch.int32, 'cpu'); t.stage_write_elem(0, 5);
FusedStagedWriter('cpu', 1).apply([t], torch.tensor([t.gpu.data_ptr()], dtype=torch.uint64), torch.tensor([1]))``.
Reference: ``ValueError: output_strides must hold each tensor's .gpu.stride(0), ...``.
Bug: ``ValueError: output_ptrs must hold each tensor's .gpu.stride(0), ...``.
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
        raise ValueError(
            "output_ptrs must hold each tensor's .gpu.stride(0), in the order of tensors"
        )  # BUG (r52 b08): names output_ptrs for the stride table
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]  # noqa: F821 (buffer_utils' globals)
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)  # noqa: F821
    for t in tensors:
        t.clear_staged_writes()


def target() -> Target:
    f = fork("b08")
    return make_target(
        "b08_fused_stride_refusal_names_ptrs",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b08", methods={"FusedStagedWriter": {"apply": apply}}),
    )
