"""b19 (CPU): ``FusedStagedWriter`` caches its pointer and stride tables by tensor identity alone, without their versions: a table changed in place is never read again.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter._read_tables``.

Change (one condition)::

    if last is not None and last[0] is output_ptrs and last[1] is output_strides and last[2] == versions:  # reference
    if last is not None and last[0] is output_ptrs and last[1] is output_strides:                          # bug

The engineer kept the identity test ("Model Runner V2 builds its tables once and passes the
same ones every step") and dropped the version test as redundant with it. But engines
rewrite the table tensors in place (``ptrs.copy_(...)``, ``ptrs[i] = t.gpu.data_ptr()`` after a
tensor is rebuilt or reordered): the writer keeps checking against the values it read first.
A table made wrong in place is accepted (the apply writes although the tables now describe
other tensors), and a table correctly updated for a new order of ``tensors`` is refused
with ``ValueError`` naming ``output_ptrs``.

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter.apply`` docstring: "The tables
are read on the host once per pair of table tensors and their versions (``Tensor._version``,
which every in-place torch op advances) ... and a table changed in place by torch is read
again"; docs/reference.md, Model Runner V2: "The tables are read on the host once per table
tensor and version (`Tensor._version`, which every in-place torch op advances)";
``FusedStagedWriter`` docstring, Raises: "ValueError: ``output_ptrs``/``output_strides``
disagree with ``tensors``; nothing written"; docs/contracts.md, fused-writes: "A fused apply
that cannot be done whole is refused before any tensor is written (`prop_fused_refused`, a
table): pointer tables swapped, ...".

Smallest input: ``a, b = StagedWriteTensor(2, torch.int32, 'cpu'), StagedWriteTensor(2, torch.int32, 'cpu');
w = FusedStagedWriter('cpu', 2); ptrs = torch.tensor([a.gpu.data_ptr(), b.gpu.data_ptr()], dtype=torch.uint64);
strides = torch.tensor([1, 1]); w.apply([a, b], ptrs, strides)``; then
``ptrs.copy_(torch.tensor([b.gpu.data_ptr(), a.gpu.data_ptr()], dtype=torch.uint64))`` (the table
swapped in place), ``a.stage_write_elem(0, 7); w.apply([a, b], ptrs, strides)``.
Reference: ``ValueError: output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors``
(``a.gpu == [0, 0]``, the write still staged). Bug: applied, ``a.gpu == [7, 0]``.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _read_tables(self, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> tuple[list[int], list[int]]:
    """The two tables' values as ints, from the last read when the same tensors at the same versions come again."""
    versions = (output_ptrs._version, output_strides._version)
    last = self._tables
    if last is not None and last[0] is output_ptrs and last[1] is output_strides:  # BUG (r50 b19): versions unchecked
        return last[3], last[4]
    ptrs = [int(p) for p in output_ptrs.tolist()]
    strides = [int(s) for s in output_strides.tolist()]
    self._tables = (output_ptrs, output_strides, versions, ptrs, strides)
    return ptrs, strides


def target() -> Target:
    f = fork("b19")
    return make_target(
        "b19_fused_tables_version_ignored",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b19", methods={"FusedStagedWriter": {"_read_tables": _read_tables}}),
    )
