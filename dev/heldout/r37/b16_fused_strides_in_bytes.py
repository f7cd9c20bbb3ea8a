"""FusedStagedWriter.apply checks ``output_strides`` as byte strides, like ``output_ptrs`` are byte addresses.

What changed: the stride check compares against
``t.gpu.stride(0) * t.gpu.element_size()`` instead of ``t.gpu.stride(0)``.

Why an engineer would write it: the table next to it holds raw byte addresses
(``data_ptr()``), so "the strides must be in bytes too" - a natural assumption for a
pointer-and-stride kernel ABI; vLLM's kernel in fact adds ``row_idx * row_stride`` to a
typed pointer, i.e. element strides.

Promise broken (contract fused-writes; FusedStagedWriter's docstring): ``output_strides``
holds each ``.gpu``'s ``stride(0)`` (elements), as vLLM's block tables pass them; with
them ``apply`` leaves every tensor as its own ``apply_write`` would. With the bug every
valid call raises ValueError and writes nothing.

Smallest input: ``t = StagedWriteTensor(1, torch.int32, "cpu"); t.stage_write_elem(0, 7);
FusedStagedWriter("cpu", 1).apply([t], torch.tensor([t.gpu.data_ptr()],
dtype=torch.uint64), torch.tensor([1]))``: reference ``.gpu == [7]``; bug ValueError
("output_strides must hold ...").
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _apply(self, tensors, output_ptrs, output_strides):  # type: ignore[no-untyped-def]
    ptrs = [int(p) for p in output_ptrs.tolist()]
    strides = [int(s) for s in output_strides.tolist()]
    if ptrs != [t.gpu.data_ptr() for t in tensors]:
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    if strides != [t.gpu.stride(0) * t.gpu.element_size() for t in tensors]:  # BUG: byte strides expected
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]  # noqa: F821
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)  # noqa: F821
    for t in tensors:
        t.clear_staged_writes()


class FusedStagedWriter(REF.FusedStagedWriter):
    apply = rebind(_apply)


def target() -> Target:
    return make_target("fused_strides_in_bytes", FusedStagedWriter=FusedStagedWriter)
