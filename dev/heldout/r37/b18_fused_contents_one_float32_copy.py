"""FusedStagedWriter.apply uploads every tensor's contents in one float32 copy, then casts per tensor.

What changed: instead of converting each pending tensor's staged values in its own dtype
(``_converted(t)``), ``apply`` concatenates all contents, converts them once with
``async_tensor_h2d(..., dtype=torch.float32)`` and casts each tensor's slice to its dtype.

Why an engineer would write it: it is the point of a *fused* writer: one H2D copy per step
instead of one per tensor (vLLM sends one contents tensor too, as int32); float32 looks
wide enough for "every supported dtype" (int32, int64, float32), and every block id and
slot number of a small test fits in its 24-bit mantissa.

Promise broken (contract fused-writes; FusedStagedWriter's docstring): one ``apply``
leaves every tensor bit-identical to its own ``apply_write``, "the reference writes each
tensor in its own dtype". Integers above 2**24 lose their low bits.

Smallest input: ``t = StagedWriteTensor(1, torch.int32, "cpu"); t.stage_write_elem(0,
16777217); FusedStagedWriter("cpu", 1).apply([t], ptrs, strides)``: reference
``.gpu == [16777217]``, bug ``[16777216]``.
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
    pending = [t for t in tensors if t._staged_write_indices]
    staged = [t.staged_positions() for t in pending]
    converted = []
    if pending:
        # BUG: one H2D copy of every tensor's contents, as float32 ("holds all three dtypes"), cast per tensor
        flat = async_tensor_h2d([v for _, values in staged for v in values], device=self.device, dtype=torch.float32)  # noqa: F821
        offset = 0
        for t, (positions, values) in zip(pending, staged, strict=True):
            converted.append((positions, flat[offset : offset + len(values)].to(t.gpu.dtype)))
            offset += len(values)
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)  # noqa: F821
    for t in tensors:
        t.clear_staged_writes()


class FusedStagedWriter(REF.FusedStagedWriter):
    apply = rebind(_apply)


def target() -> Target:
    return make_target("fused_contents_one_float32_copy", FusedStagedWriter=FusedStagedWriter)
