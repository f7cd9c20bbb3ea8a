"""b16 (CPU): ``FusedStagedWriter.apply`` skips the stride table when every tensor is 1-D.

Where: ``buffer_utils.FusedStagedWriter.apply``. The reference checks ``output_strides``
against each tensor's ``.gpu.stride(0)`` and refuses a table that disagrees (wrong value,
one entry short or long) with ``ValueError``, before anything is written. The bug guards
the check with ``any(t.gpu.dim() > 1 for t in tensors)`` ("1-D tensors have no row
stride; vLLM passes whatever for them").

Why realistic: a shortcut for the common 1-D case (per-request scalars), taken from a
reading of the kernel's arguments; vLLM's kernel does address 1-D tensors with the stride
it is given, so a wrong table is a wrong write there, and the checker that should say so
is silent.

Smallest input: ``t = StagedWriteTensor(4, torch.int32, "cpu"); t.stage_write(1, 0, [5]);
FusedStagedWriter("cpu", 1).apply([t], torch.tensor([t.gpu.data_ptr()], dtype=torch.uint64),
torch.tensor([2]))``. Reference: ``ValueError: output_strides must hold each tensor's
.gpu.stride(0)`` (``t.gpu`` stays zeros). Bug: applied, ``t.gpu == [0, 5, 0, 0]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def apply(self, tensors, output_ptrs, output_strides):
    """Apply and clear the staged writes of ``tensors`` (ValueError naming the argument when the tables disagree)."""
    ptrs = [int(p) for p in output_ptrs.tolist()]
    strides = [int(s) for s in output_strides.tolist()]
    if ptrs != [t.gpu.data_ptr() for t in tensors]:
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    # BUG: `any(... dim() > 1)` added: 1-D tensors "have no row stride"
    if any(t.gpu.dim() > 1 for t in tensors) and strides != [t.gpu.stride(0) for t in tensors]:
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)
    for t in tensors:
        t.clear_staged_writes()


def target() -> Target:
    f = fork("b16")
    return make_target(
        "b16_fused_strides_1d_skipped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b16", methods={"FusedStagedWriter": {"apply": apply}}),
    )
