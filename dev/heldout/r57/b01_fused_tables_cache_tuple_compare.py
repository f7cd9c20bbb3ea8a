"""b01 (CPU): the fused writer's table cache is tested by one tuple comparison, which compares new table tensors with ``==``.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter._read_tables`` (every ``FusedStagedWriter.apply``).

Change: a tidy-up of the cache test ("three ``and``-ed tests for one question: is this the pair I read last,
at the same versions? Compare them as one tuple; tuples compare their items by identity first")::

    if last is not None and last[0] is output_ptrs and last[1] is output_strides and last[2] == versions:  # reference

    if last is not None and last[:3] == (output_ptrs, output_strides, versions):                          # bug

A tuple comparison does take the identity shortcut, item by item, so the steady state the engineer had
in mind (Model Runner V2 passes the same two table tensors every step) is unchanged. But when an item is
not the same object, Python falls back to ``==``: for two tensors that is an elementwise comparison,
whose truth value is asked next. The first apply after the tables are rebuilt (vLLM's
``BlockTables.init_block_table_layout_tensors()`` makes new ``block_table_ptrs``/``block_table_strides``
tensors: a KV-cache re-initialisation, a new set of groups) therefore raises torch's
``RuntimeError: Boolean value of Tensor with more than one value is ambiguous`` for any table of two or
more entries, every step from then on: the cache still holds the old pair. (One-entry tables pass: a
one-element comparison has a truth value, so only multi-group writers, the ones the fused writer exists
for, fail.)

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter.apply``: "The tables are read on the host
once per pair of table tensors and their versions ... and a table changed in place by torch is read
again" and "Raises: ValueError: ``output_ptrs``/``output_strides`` disagree with ``tensors``; nothing
written" (valid new tables are read, not refused, and no other exception is documented); docs/contracts.md,
fused-writes: "tables rewritten in place for a new order of the tensors serve the next apply over that order".

Smallest input: ``a, b = StagedWriteTensor(1, torch.int32, 'cpu')`` x2; ``w = FusedStagedWriter('cpu', 2);
w.apply([a, b], ptrs(a, b), strides(a, b))``; ``a.stage_write_elem(0, 5); b.stage_write_elem(0, 6)``;
``w.apply([a, b], ptrs(a, b), strides(a, b))`` with freshly built (equal) tables; ``a.gpu, b.gpu``.
Reference: both applies return None; ``a.gpu == [5]``, ``b.gpu == [6]``.
Bug: the second apply raises ``RuntimeError: Boolean value of Tensor with more than one value is ambiguous``;
``a.gpu == b.gpu == [0]`` (the writes stay staged; every later apply with the new tables raises again).
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _read_tables(self: Any, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> tuple[list[int], list[int]]:
    """The two tables' values as ints, from the last read when the same tensors at the same versions come again."""
    versions = (output_ptrs._version, output_strides._version)
    last = self._tables
    if last is not None and last[:3] == (
        output_ptrs,
        output_strides,
        versions,
    ):  # BUG (r57 b01): tensors compared by ==
        return last[3], last[4]
    ptrs = [int(p) for p in output_ptrs.tolist()]
    strides = [int(s) for s in output_strides.tolist()]
    self._tables = (output_ptrs, output_strides, versions, ptrs, strides)
    return ptrs, strides


def target() -> Target:
    f = fork("b01")
    return make_target(
        "b01_fused_tables_cache_tuple_compare",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01", methods={"FusedStagedWriter": {"_read_tables": _read_tables}}),
    )
