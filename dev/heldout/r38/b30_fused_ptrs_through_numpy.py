"""b30 (GPU-only, buffer_utils.py ``FusedStagedWriter.apply``): the pointer table is read through numpy.

What changed: ``[int(p) for p in output_ptrs.tolist()]`` (the pointer table) became
``[int(p) for p in np.asarray(output_ptrs)]``.

Why an engineer would write it: "``tolist()`` of a uint64 tensor boxes one Python int per
element through torch's slow path; ``np.asarray`` is a zero-copy view". It is, for a host
tensor. vLLM's block tables pass its tables *on the device* (the UVA/GPU views of its
pointer buffers), and ``np.asarray`` of a CUDA tensor raises
``TypeError: can't convert cuda:0 device type tensor to numpy``, where ``tolist()`` copies them
back. On a CPU host every table is a host tensor and both versions agree.

Observable (CUDA only): ``t = StagedWriteTensor(4, torch.int32, "cuda"); t.stage_write(0, 0, [5])``;
``FusedStagedWriter("cuda", 1).apply([t], torch.tensor([t.gpu.data_ptr()], dtype=torch.uint64,
device="cuda"), torch.tensor([1], dtype=torch.int64, device="cuda"))``.
Reference: ``t.gpu == [5, 0, 0, 0]``, writes cleared. Bug: ``TypeError: can't convert cuda:0
device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.``, the
write left staged.

Promise broken: ``apply(tensors, output_ptrs, output_strides)`` "leaves every tensor as its own
``apply_write()`` would" and raises only ``ValueError`` when the tables disagree with the
tensors (docstring; "``output_ptrs``/``output_strides`` (vLLM's kernel arguments: each
``.gpu``'s address and row stride)"; docs/reference.md: same constructors and methods as
vLLM 0.33.0; contracts.md fused-writes: "each ``.gpu``'s address as uint64 and row stride, as
vLLM's block tables pass them").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer_utils as _bu

from ._common import buffer_utils_ns, fork, make_target, rebind


def apply(self, tensors: Sequence[_bu.StagedWriteTensor], output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
    """Apply and clear the staged writes of ``tensors`` (ValueError naming the argument when the tables disagree)."""
    ptrs = [int(p) for p in np.asarray(output_ptrs)]  # BUG: numpy view of the table: fails for device tensors
    strides = [int(s) for s in output_strides.tolist()]
    if ptrs != [t.gpu.data_ptr() for t in tensors]:
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


class BuggyFusedStagedWriter(_bu.FusedStagedWriter):
    apply = rebind(apply, _bu)


def target() -> Target:
    f = fork("b30")
    return make_target(
        "b30_fused_ptrs_through_numpy",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(FusedStagedWriter=BuggyFusedStagedWriter),
    )
