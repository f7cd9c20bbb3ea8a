"""b06 (CPU): ``FusedStagedWriter.apply`` sorts the caller's ``tensors`` list in place (``list.sort``, not ``sorted``).

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter.apply`` (after the table checks).

Change: the writes applied in address order ("vLLM's kernel grid walks the block tables in memory
order; apply the tensors by ``.gpu`` address so the host writes walk memory forward too")::

    pending = [t for t in tensors if t._staged_write_indices]                     # reference

    tensors.sort(key=lambda t: t.gpu.data_ptr())                                 # bug
    pending = [t for t in tensors if t._staged_write_indices]

The apply itself is right: the tables are checked against the caller's order before the sort, and
each tensor gets its own writes. But ``tensors`` is the caller's list: Model Runner V2 passes its own
``self.block_tables`` every step, with ``block_table_ptrs``/``block_table_strides`` built once from it.
After the first apply that list is reordered, so the runner's ``block_tables[i]`` is another KV-cache
group's table (the next ``append_block_ids`` stages group ``i``'s blocks into it), and the next step's
apply, with the same tables, is refused (``output_ptrs`` no longer in the order of ``tensors``). Nothing
changes when the list is already in address order (a tuple raises ``AttributeError``).

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter.apply``: "The tables are read on the host once
per pair of table tensors and their versions ... Model Runner V2 builds its tables once and passes the
same ones every step" and "Raises: ValueError: ``output_ptrs``/``output_strides`` disagree with ``tensors``"
(they do not: the writer reordered ``tensors``); docs/contracts.md, fused-writes: "One writer serves applies
over different subsets of three tensors, apply after apply".

Smallest input: ``a, b = StagedWriteTensor(1, torch.int32, 'cpu')`` x2; ``ts = [a, b]`` ordered by
decreasing ``.gpu.data_ptr()``; ``P, S = ptrs(ts), strides(ts)``; ``w = FusedStagedWriter('cpu', 2)``;
``w.apply(ts, P, S)``; ``a.stage_write_elem(0, 1); b.stage_write_elem(0, 2); w.apply(ts, P, S)``.
Reference: both applies return; ``ts`` keeps its order; ``a.gpu == [1]``, ``b.gpu == [2]``.
Bug: the first apply reverses ``ts``; the second raises ``ValueError: output_ptrs must hold each tensor's
.gpu.data_ptr(), in the order of tensors``; ``a.gpu == [0]``, ``b.gpu == [0]``.
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
    tensors.sort(key=lambda t: t.gpu.data_ptr())  # BUG (r56 b06): address order, sorting the caller's own list
    # every tensor's values converted (so validated) before any tensor is written
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)
    for t in tensors:
        t.clear_staged_writes()


def target() -> Target:
    f = fork("b06")
    return make_target(
        "b06_fused_sorts_callers_tensors",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06", methods={"FusedStagedWriter": {"apply": apply}}),
    )
