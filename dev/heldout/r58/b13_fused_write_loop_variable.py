"""b13 (CPU): the fused apply's write loop reads the conversion loop's variable ``t``: every write goes to the last tensor.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter.apply``.

Change: the conversions written as a loop of their own ("convert (and so validate) every tensor first, then
write: two plain loops read better than a zip over a comprehension")::

    converted = [_converted(t) for t in pending]                                      # reference
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)

    converted = []                                                                    # bug
    for t in pending:
        converted.append(_converted(t))
    for positions, contents in converted:
        _write(t.gpu, positions, contents)

A Python ``for`` leaves its variable bound after the loop: in the second loop ``t`` is still the last pending
tensor, so every tensor's writes are written into the last one's ``.gpu`` (at their own positions: an earlier
tensor's rows overwrite the last one's, or raise ``IndexError`` past its end), and the other tensors keep their
old contents while their writes are cleared. With one pending tensor, the common case in tests, it is right.

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter``: "``apply(tensors, output_ptrs, output_strides)`` leaves
every tensor as its own ``apply_write()`` would"; docs/contracts.md, fused-writes: "leaves every tensor bit-identical
to a twin given its own ``apply_write()``".

Smallest input: ``a, b = StagedWriteTensor(2, torch.int32, 'cpu') x2; a.stage_write_elem(0, 1);
b.stage_write_elem(1, 2); FusedStagedWriter('cpu', 2).apply([a, b], P, S); a.gpu, b.gpu``.
Reference: ``a.gpu == [1, 0]``, ``b.gpu == [0, 2]``. Bug: ``a.gpu == [0, 0]``, ``b.gpu == [1, 2]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _converted, _write)


def apply(self: Any, tensors: Sequence[Any], output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
    """Apply and clear the staged writes of ``tensors`` (ValueError naming the argument when the tables disagree)."""
    ptrs, strides = self._read_tables(output_ptrs, output_strides)
    if ptrs != [t.gpu.data_ptr() for t in tensors]:
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    if strides != [t.gpu.stride(0) for t in tensors]:
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    # every tensor's values converted (so validated) before any tensor is written
    pending = [t for t in tensors if t._staged_write_indices]
    converted = []
    for t in pending:
        converted.append(_converted(t))
    for positions, contents in converted:
        _write(t.gpu, positions, contents)  # BUG (r58 b13): t is the conversion loop's last tensor
    for t in tensors:
        t.clear_staged_writes()


def target() -> Target:
    f = fork("b13")
    return make_target(
        "b13_fused_write_loop_variable",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b13", methods={"FusedStagedWriter": {"apply": apply}}),
    )
