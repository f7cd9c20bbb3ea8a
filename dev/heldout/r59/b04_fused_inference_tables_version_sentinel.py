"""b04 (CPU): the fused writer's table cache asks for ``_version`` first and stands in ``None`` for inference tables.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter._read_tables`` (every ``FusedStagedWriter.apply``).

Change: the inference test written EAFP-style ("ask for the versions; only inference tensors refuse, so catch that
instead of two ``is_inference()`` calls on the hot path")::

    if output_ptrs.is_inference() or output_strides.is_inference():                       # reference
        return [int(p) for p in output_ptrs.tolist()], [int(s) for s in output_strides.tolist()]
    versions = (output_ptrs._version, output_strides._version)

    try:                                                                                  # bug
        versions = (output_ptrs._version, output_strides._version)
    except RuntimeError:  # "Inference tensors do not track version counter"
        versions = None

The rest is unchanged: the cache hit still needs the same two table objects and ``last[2] == versions``. ``None ==
None``: for tables made under ``torch.inference_mode()`` (where engines build them when the runner is set up inside
the mode) every later apply with the same table objects is a hit, whatever was written into them since. A pointer
table rewritten in place for a new order of the tensors, or a stride table corrected in place, is never read
again: the writer validates the next apply against the values it read first, so a table that now disagrees with
the tensors is accepted (the writes still land by tensor object) and a table that now agrees is refused.

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter._read_tables``: "Inference tensors ... have no version
counter: an in-place change inside the mode is not counted, so they are read on every apply, never from the last
read"; docs/contracts.md, fused-writes: "tables rewritten in place for a new order of the tensors serve the next
apply over that order: a writer that keeps its reading of the tables must read them again when they change".

Smallest input (inside ``torch.inference_mode()``): ``a, b = StagedWriteTensor(2, torch.int32, 'cpu')`` x2;
``P = ptrs(a, b); S = strides(a, b)`` (uint64, int64, made in the mode); ``w = FusedStagedWriter('cpu', 2)``;
``a.stage_write_elem(0, 1); w.apply([a, b], P, S)``; ``P.copy_(ptrs(b, a))``; ``a.stage_write_elem(1, 5);
w.apply([a, b], P, S)``.
Reference: the second apply raises ``ValueError: output_ptrs must hold each tensor's .gpu.data_ptr() ...``,
``a.gpu == [1, 0]``. Bug: accepted, ``a.gpu == [1, 5]``; and ``w.apply([b, a], P, S)`` (a good table after
the rewrite) raises instead.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _read_tables(self: Any, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> tuple[list[int], list[int]]:
    """The two tables' values as ints, from the last read when the same tensors at the same versions come again."""
    try:
        versions: Any = (output_ptrs._version, output_strides._version)
    except RuntimeError:  # inference tensors have no version counter
        versions = None  # BUG (r59 b04): None == None, so an inference table is "unchanged" on every later apply
    last = self._tables
    if last is not None and last[0] is output_ptrs and last[1] is output_strides and last[2] == versions:
        return last[3], last[4]
    ptrs = [int(p) for p in output_ptrs.tolist()]
    strides = [int(s) for s in output_strides.tolist()]
    self._tables = (output_ptrs, output_strides, versions, ptrs, strides)
    return ptrs, strides


def target() -> Target:
    f = fork("b04")
    return make_target(
        "b04_fused_inference_tables_version_sentinel",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04", methods={"FusedStagedWriter": {"_read_tables": _read_tables}}),
    )
