"""``FusedStagedWriter.apply`` converts and writes tensor by tensor: a bad value leaves the batch half applied.

What changed: ``apply`` converted (so validated) every tensor's staged values first and wrote
none until all had converted. The change converts and writes in one loop, clearing each
tensor as it goes: "two passes and a list of converted contents for nothing; one pass does
the same".

Why an engineer writes it: in the success case the two are identical, and the one-pass
loop is what the fused kernel's name suggests.

Promise broken: docs/reference.md ("bounds are exceptions ... raised before anything is
staged or written"; "a value out of the dtype's range raises at ``apply_write``, nothing
written"; Errors: "A failed call writes nothing") and the code's own rule ("every tensor's
values converted (so validated) before any tensor is written"). With a value out of range
in the second tensor, the first tensor is written and its writes cleared, the second is
not: a step's block tables end up half updated, and a retry cannot reapply the first.

Smallest input: ``a = StagedWriteTensor(1, torch.int32, "cpu"); b = StagedWriteTensor(1,
torch.int32, "cpu"); a.stage_write(0, 0, [5]); b.stage_write(0, 0, [2**40]);
FusedStagedWriter("cpu", 2).apply([a, b], ptrs, strides)`` (``ptrs``/``strides`` the tensors'
own): ValueError in both; reference ``a.gpu == [0]`` with its write still staged; bug
``a.gpu == [5]``, nothing staged.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl.buffer_utils import FusedStagedWriter, StagedWriteTensor, _converted, _write

from ._common import buffer_utils_ns, make_target


class OnePassFusedStagedWriter(FusedStagedWriter):
    def apply(
        self, tensors: Sequence[StagedWriteTensor], output_ptrs: torch.Tensor, output_strides: torch.Tensor
    ) -> None:
        ptrs = [int(p) for p in output_ptrs.tolist()]
        strides = [int(s) for s in output_strides.tolist()]
        if ptrs != [t.gpu.data_ptr() for t in tensors]:
            raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
        if strides != [t.gpu.stride(0) for t in tensors]:
            raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
        # BUG: one pass: convert, write and clear each tensor in turn (was: convert all, then write all, then clear)
        for t in tensors:
            if t._staged_write_indices:
                _write(t.gpu, *_converted(t))
            t.clear_staged_writes()


def target() -> Target:
    return make_target(
        "b23_fused_writes_not_atomic", buffer_utils=buffer_utils_ns(FusedStagedWriter=OnePassFusedStagedWriter)
    )
