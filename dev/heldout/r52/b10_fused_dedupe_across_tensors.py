"""b10 (CPU): the fused apply dedupes the staged elements of all its tensors as one address space.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter.apply``.

Change: "one dedupe pass for the whole fused apply (vLLM fuses it into one kernel) instead of
one ``np.unique`` per tensor": the flat positions of every pending tensor are concatenated and
an element is dropped when a *later* write has the same position. But a position is an offset
into *its own* tensor's ``.gpu``::

    for t, (positions, contents) in zip(pending, converted, strict=True):    # reference
        _write(t.gpu, positions, contents)

    flat = np.concatenate([p for p, _ in converted])                          # bug
    _, last_rev = np.unique(flat[::-1], return_index=True)
    live[flat.size - 1 - last_rev] = True         # the last write of each *offset*, whatever its tensor
    for t, (positions, contents) in zip(pending, converted, strict=True):
        keep = np.flatnonzero(live[begin : begin + positions.size]); ...
        _write(t.gpu, positions[keep], contents[keep])

Writes into one tensor, and tensors whose writes touch different offsets, are applied as before.
When two tensors of one apply write the same row and column (two KV-cache groups' block tables
given the same request row, the common case) every write of the earlier tensor at that offset is
dropped silently, and the staged writes are cleared.

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter`` docstring: "``apply(tensors,
output_ptrs, output_strides)`` leaves every tensor as its own ``apply_write()`` would";
docs/contracts.md, fused-writes: "one ``FusedStagedWriter(device, max_writes).apply(tensors, ptrs,
strides)`` ... leaves every tensor bit-identical to a twin given its own ``apply_write()``".

Smallest input: ``a = StagedWriteTensor(2, torch.int32, 'cpu'); b = StagedWriteTensor(2, torch.int32, 'cpu');
a.stage_write_elem(0, 5); b.stage_write_elem(0, 7); FusedStagedWriter('cpu', 2).apply([a, b], ptrs, strides)``
(``ptrs`` the two ``.gpu.data_ptr()`` as uint64, ``strides = torch.tensor([1, 1])``).
Reference: ``a.gpu == [5, 0]``, ``b.gpu == [7, 0]``. Bug: ``a.gpu == [0, 0]``, ``b.gpu == [7, 0]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def apply(self: Any, tensors: Sequence[Any], output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
    ptrs, strides = self._read_tables(output_ptrs, output_strides)
    if ptrs != [t.gpu.data_ptr() for t in tensors]:
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    if strides != [t.gpu.stride(0) for t in tensors]:
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]  # noqa: F821 (buffer_utils' globals)
    # one dedupe pass for the whole fused apply: the last staged write of each element wins
    flat = np.concatenate([p for p, _ in converted]) if converted else np.zeros(0, dtype=np.int64)
    _, last_rev = np.unique(flat[::-1], return_index=True)
    live = np.zeros(flat.size, dtype=bool)
    live[flat.size - 1 - last_rev] = True  # BUG (r52 b10): offsets of different tensors compared as one address space
    begin = 0
    for t, (positions, contents) in zip(pending, converted, strict=True):
        keep = np.flatnonzero(live[begin : begin + positions.size])
        begin += positions.size
        picked = contents.index_select(0, async_tensor_h2d(keep, device=contents.device))  # noqa: F821
        _write(t.gpu, positions[keep], picked)  # noqa: F821
    for t in tensors:
        t.clear_staged_writes()


def target() -> Target:
    f = fork("b10")
    return make_target(
        "b10_fused_dedupe_across_tensors",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b10", methods={"FusedStagedWriter": {"apply": apply}}),
    )
