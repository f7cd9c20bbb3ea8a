"""b13 (CPU): a fused apply over several tensors writes only the last one (several times); the others' writes are lost.

Where: h2d_impl/buffer_utils.py, ``FusedStagedWriter.apply``.
Change: the write loop ``for t, (positions, contents) in zip(pending, converted, strict=True):
    _write(t.gpu, positions, contents)`` -> writes collected as thunks first, then issued:
    ``writes = [lambda: _write(t.gpu, positions, contents) for t, (positions, contents) in
    zip(pending, converted, strict=True)]`` / ``for w in writes: w()``.
Why plausible: a refactor toward "validate everything, then launch everything" (the shape of a
    kernel-launch queue). Python closures bind names late: every lambda reads ``t``,
    ``positions`` and ``contents`` as the comprehension left them, the last tensor's.
Promise broken: FusedStagedWriter's docstring: "``apply(tensors, output_ptrs, output_strides)``
    leaves every tensor as its own ``apply_write()`` would, and clears the staged writes of all";
    contracts.md fused-writes: "one ``FusedStagedWriter.apply`` ... leaves every tensor
    bit-identical to a twin given its own ``apply_write()``".
Smallest input:
    a = StagedWriteTensor((2, 3), torch.int32, "cpu"); b = StagedWriteTensor((2, 3), torch.int32, "cpu")
    a.stage_write(0, 0, [1, 2, 3]); b.stage_write(1, 0, [4, 5, 6])
    ptrs = torch.tensor([a.gpu.data_ptr(), b.gpu.data_ptr()], dtype=torch.uint64)
    strides = torch.tensor([a.gpu.stride(0), b.gpu.stride(0)])
    FusedStagedWriter("cpu", 2).apply([a, b], ptrs, strides)
Reference: ``a.gpu == [[1, 2, 3], [0, 0, 0]]``, ``b.gpu == [[0, 0, 0], [4, 5, 6]]``. Bug: ``a.gpu`` stays
    zeros (its write is cleared, lost); ``b`` is right. One tensor with writes is right.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target


def apply(self, tensors: Sequence, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
    ptrs = [int(p) for p in output_ptrs.tolist()]
    strides = [int(s) for s in output_strides.tolist()]
    if ptrs != [t.gpu.data_ptr() for t in tensors]:
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    if strides != [t.gpu.stride(0) for t in tensors]:
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]  # noqa: F821 (buffer_utils' globals)
    writes = [
        lambda: _write(t.gpu, positions, contents)  # noqa: F821  # BUG: late binding: every thunk sees the last t
        for t, (positions, contents) in zip(pending, converted, strict=True)
    ]
    for w in writes:
        w()
    for t in tensors:
        t.clear_staged_writes()


def classes():
    return bu_fork("b13", methods={"FusedStagedWriter": {"apply": apply}})


def target() -> Target:
    return bu_target("b13", "b13_fused_writes_late_binding", classes())
