"""b09 (CPU): ``FusedStagedWriter.apply`` checks ``output_ptrs`` against the tensors that have writes, not all of them.

Where: ``FusedStagedWriter.apply``.

Change: the ``pending`` filter moved above the table checks and the pointer check was
written over it::

    pending = [t for t in tensors if t._staged_write_indices]
    if ptrs != [t.gpu.data_ptr() for t in pending]:       # was: for t in tensors
        raise ValueError("output_ptrs must hold ...")

Why plausible: "only the tensors we write need a valid pointer" reads like a tightening,
and in a batch where every tensor has a write nothing changes. A step where one block
table has no new blocks (nothing staged on it) is the common case, and then the caller's
full, correct table no longer matches.

Promise broken: ``FusedStagedWriter``: "``apply(tensors, output_ptrs, output_strides)`` leaves
every tensor as its own ``apply_write()`` would, and clears the staged writes of all";
docs/contracts.md (fused-writes): "1-4 ``StagedWriteTensor``\\ s ... with drawn writes: one
``FusedStagedWriter(device, max_writes).apply(tensors, ptrs, strides)`` (each ``.gpu``'s
address ...) leaves every tensor bit-identical to a twin given its own ``apply_write()``";
refusal is promised only when the tables "disagree with ``tensors``".

Smallest input: ``a = StagedWriteTensor(2, int32, "cpu"); b = StagedWriteTensor(2, int32, "cpu");
a.stage_write_elem(0, 5); FusedStagedWriter("cpu", 1).apply([a, b],
torch.tensor([a.gpu.data_ptr(), b.gpu.data_ptr()], dtype=torch.uint64), torch.tensor([1, 1]))``.
Reference: applied: ``a.gpu`` = [5, 0], ``b.gpu`` = [0, 0].
Bug: ``ValueError: output_ptrs must hold each tensor's .gpu.data_ptr() ...``; ``a.gpu`` = [0, 0], write still staged.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ._bu import bu_fork, bu_target

TAG, SHORT = "b09", "b09_fused_ptrs_checked_against_pending"


def apply(self, tensors: Sequence, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
    """Apply and clear the staged writes of ``tensors`` (ValueError naming the argument when the tables disagree)."""
    ptrs = [int(p) for p in output_ptrs.tolist()]
    strides = [int(s) for s in output_strides.tolist()]
    pending = [t for t in tensors if t._staged_write_indices]
    if ptrs != [t.gpu.data_ptr() for t in pending]:  # BUG: was `for t in tensors`
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    if strides != [t.gpu.stride(0) for t in tensors]:
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    # every tensor's values converted (so validated) before any tensor is written
    converted = [_converted(t) for t in pending]  # noqa: F821
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)  # noqa: F821
    for t in tensors:
        t.clear_staged_writes()


def classes():
    return bu_fork(TAG, methods={"FusedStagedWriter": {"apply": apply}})


def target():
    return bu_target(TAG, SHORT, classes())
