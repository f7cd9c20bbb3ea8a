"""``FusedStagedWriter.apply`` checks only the lengths of ``output_ptrs``/``output_strides``.

What changed: ``apply(tensors, output_ptrs, output_strides)`` refused tables that did not
hold each tensor's ``.gpu.data_ptr()`` and ``.gpu.stride(0)`` in order. The change only checks
that the tables have one entry per tensor: "the reference writes through the tensors, not
the pointers; the tables only have to line up".

Why an engineer writes it: the pointers are indeed unused by the reference's write, so
comparing them looks like wasted work (``.tolist()`` of both tables, a ``data_ptr()`` per
tensor), and a length check still catches a missing tensor.

Promise broken: docs/reference.md ("``FusedStagedWriter.apply`` ... checks ``output_ptrs`` and
``output_strides`` against the tensors (``ValueError``)") and the class docstring ("Raises:
ValueError: output_ptrs/output_strides disagree with tensors; nothing written"). Tables in
another order, stale pointers from before a reallocation, or zeros are accepted; vLLM's
kernel, which the reference models, writes through exactly those pointers, so a caller
validated against the reference ships tables that corrupt memory in the engine.

Smallest input: two tensors ``a, b = StagedWriteTensor(2, torch.int32, "cpu"),
StagedWriteTensor(2, torch.int32, "cpu")`` with one staged write each, and
``output_ptrs = torch.tensor([b.gpu.data_ptr(), a.gpu.data_ptr()], dtype=torch.uint64)``
(swapped), ``output_strides = torch.tensor([1, 1])``: reference ``ValueError`` naming
``output_ptrs``, nothing written; bug writes both and returns.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl.buffer_utils import FusedStagedWriter, StagedWriteTensor, _converted, _write

from ._common import buffer_utils_ns, make_target


class CountOnlyFusedStagedWriter(FusedStagedWriter):
    def apply(
        self, tensors: Sequence[StagedWriteTensor], output_ptrs: torch.Tensor, output_strides: torch.Tensor
    ) -> None:
        # BUG: only the tables' lengths are checked (was: each entry against the tensor's data_ptr / stride(0))
        if len(output_ptrs) != len(tensors):
            raise ValueError("output_ptrs must hold one entry per tensor")
        if len(output_strides) != len(tensors):
            raise ValueError("output_strides must hold one entry per tensor")
        pending = [t for t in tensors if t._staged_write_indices]
        converted = [_converted(t) for t in pending]
        for t, (positions, contents) in zip(pending, converted, strict=True):
            _write(t.gpu, positions, contents)
        for t in tensors:
            t.clear_staged_writes()


def target() -> Target:
    return make_target(
        "b20_fused_ptrs_count_only", buffer_utils=buffer_utils_ns(FusedStagedWriter=CountOnlyFusedStagedWriter)
    )
