"""b10 (CPU): ``FusedStagedWriter.apply`` compares ``output_ptrs`` as a set: a permuted pointer table passes.

Where: ``FusedStagedWriter.apply``.

Change: ``if ptrs != [t.gpu.data_ptr() for t in tensors]`` became
``if set(ptrs) != {t.gpu.data_ptr() for t in tensors}``.

Why plausible: "the table only has to name the same buffers"; an engineer who knows the
reference writes through ``tensors`` (the table is checked, not used) relaxes the check to
membership. But vLLM's kernel *uses* the table positionally (program i stores through
``output_ptrs[i]``), so a permuted table is exactly the fault the check exists to refuse.

Promise broken: ``FusedStagedWriter``: "``ValueError``: ``output_ptrs``/``output_strides``
disagree with ``tensors``; nothing written"; ``apply``: "``output_ptrs`` must hold each tensor's
``.gpu.data_ptr()``, in the order of tensors"; docs/contracts.md (fused-writes): "A fused
apply that cannot be done whole is refused before any tensor is written: pointer tables
swapped ... (``ValueError`` naming ``output_ptrs`` ...)".

Smallest input: ``a, b = StagedWriteTensor(2, int32, "cpu"), StagedWriteTensor(2, int32, "cpu");
a.stage_write_elem(0, 5); FusedStagedWriter("cpu", 1).apply([a, b],
torch.tensor([b.gpu.data_ptr(), a.gpu.data_ptr()], dtype=torch.uint64), torch.tensor([1, 1]))``.
Reference: ``ValueError: output_ptrs must hold ...``; ``a.gpu`` = [0, 0], the write still staged.
Bug: accepted: ``a.gpu`` = [5, 0], staged writes cleared.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ._bu import bu_fork, bu_target

TAG, SHORT = "b10", "b10_fused_ptrs_compared_as_sets"


def apply(self, tensors: Sequence, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
    """Apply and clear the staged writes of ``tensors`` (ValueError naming the argument when the tables disagree)."""
    ptrs = [int(p) for p in output_ptrs.tolist()]
    strides = [int(s) for s in output_strides.tolist()]
    if set(ptrs) != {t.gpu.data_ptr() for t in tensors}:  # BUG: was a list comparison (order matters)
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    if strides != [t.gpu.stride(0) for t in tensors]:
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    # every tensor's values converted (so validated) before any tensor is written
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]  # noqa: F821
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)  # noqa: F821
    for t in tensors:
        t.clear_staged_writes()


def classes():
    return bu_fork(TAG, methods={"FusedStagedWriter": {"apply": apply}})


def target():
    return bu_target(TAG, SHORT, classes())
