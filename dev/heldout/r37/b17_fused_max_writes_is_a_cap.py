"""FusedStagedWriter.apply refuses more staged writes than ``max_writes`` instead of growing.

What changed: ``apply`` gained a capacity guard,
``if sum(len(t._staged_write_indices) for t in tensors) > self.max_writes: raise ValueError``.

Why an engineer would write it: ``max_writes`` sizes the writer's preallocated index
pools, and "writing past a preallocated buffer" is the classic overflow; a guard looks
like hardening. But the pools grow (``UvaBufferPool`` doubles a slot), as in vLLM.

Promise broken (FusedStagedWriter's docstring: "max_writes: the expected number of writes
(the pools' initial size; more grow them, as in vLLM)"; contract fused-writes: one
``apply`` equals each tensor's own ``apply_write``).

Smallest input: ``t = StagedWriteTensor(1, torch.int32, "cpu"); t.stage_write_elem(0, 7);
FusedStagedWriter("cpu", 0).apply([t], ptrs, strides)``: reference ``.gpu == [7]``; bug
ValueError ("1 staged writes exceed max_writes=0"), nothing written.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _apply(self, tensors, output_ptrs, output_strides):  # type: ignore[no-untyped-def]
    ptrs = [int(p) for p in output_ptrs.tolist()]
    strides = [int(s) for s in output_strides.tolist()]
    if ptrs != [t.gpu.data_ptr() for t in tensors]:
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    if strides != [t.gpu.stride(0) for t in tensors]:
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    total = sum(len(t._staged_write_indices) for t in tensors)
    if total > self.max_writes:  # BUG: max_writes is the pools' initial size, not a limit
        raise ValueError(f"{total} staged writes exceed max_writes={self.max_writes}")
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]  # noqa: F821
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)  # noqa: F821
    for t in tensors:
        t.clear_staged_writes()


class FusedStagedWriter(REF.FusedStagedWriter):
    apply = rebind(_apply)


def target() -> Target:
    return make_target("fused_max_writes_is_a_cap", FusedStagedWriter=FusedStagedWriter)
