"""b14 (CPU): a fused apply accepts pointer and stride tables shorter than its tensor list (``zip`` truncates).

Where: h2d_impl/buffer_utils.py, ``FusedStagedWriter.apply`` (the table checks).
Change: ``ptrs = [int(p) for p in output_ptrs.tolist()]`` / ``if ptrs != [t.gpu.data_ptr() for t in
    tensors]: raise`` (and the same for strides) ->
    ``if any(int(p) != t.gpu.data_ptr() for p, t in zip(output_ptrs.tolist(), tensors)): raise``
    (and the same for strides).
Why plausible: "no need to build two lists per table to compare them": a generator over ``zip``
    stops at the shorter side, so a table missing trailing entries (or a tensor list longer than
    the table, as after appending a tensor to the writer's list without rebuilding the table)
    compares equal on its prefix.
Promise broken: FusedStagedWriter's docstring: "Raises: ValueError: ``output_ptrs``/``output_strides``
    disagree with ``tensors``; nothing written"; the message: "output_ptrs must hold each tensor's
    .gpu.data_ptr(), in the order of tensors"; contracts.md fused-writes: "A fused apply that
    cannot be done whole is refused before any tensor is written".
Smallest input:
    a = StagedWriteTensor((2, 3), torch.int32, "cpu"); b = StagedWriteTensor((2, 3), torch.int32, "cpu")
    a.stage_write(0, 0, [1, 2, 3]); b.stage_write(1, 0, [4, 5, 6])
    FusedStagedWriter("cpu", 2).apply([a, b], torch.tensor([a.gpu.data_ptr()], dtype=torch.uint64),
                                      torch.tensor([a.gpu.stride(0)]))
Reference: ``ValueError: output_ptrs must hold each tensor's .gpu.data_ptr() ...``; nothing written.
    Bug: both tensors written and cleared. A swapped or wrong entry is still refused.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target


def apply(self, tensors: Sequence, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
    if any(int(p) != t.gpu.data_ptr() for p, t in zip(output_ptrs.tolist(), tensors)):  # BUG: zip truncates
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    if any(int(s) != t.gpu.stride(0) for s, t in zip(output_strides.tolist(), tensors)):  # BUG: (same edit)
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]  # noqa: F821 (buffer_utils' globals)
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)  # noqa: F821
    for t in tensors:
        t.clear_staged_writes()


def classes():
    return bu_fork("b14", methods={"FusedStagedWriter": {"apply": apply}})


def target() -> Target:
    return bu_target("b14", "b14_fused_tables_zip_truncated", classes())
