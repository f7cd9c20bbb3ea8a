"""b13 (GPU-only): the fused writer reads its device tables with a non-blocking copy and uses them before it lands.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter._read_tables``.

Change ("read the tables without a stream sync"; the two reads)::

    ptrs = [int(p) for p in output_ptrs.tolist()]                                  # reference
    strides = [int(s) for s in output_strides.tolist()]
    ptrs = [int(p) for p in output_ptrs.to("cpu", non_blocking=True).tolist()]     # bug
    strides = [int(s) for s in output_strides.to("cpu", non_blocking=True).tolist()]

For a host table ``.to("cpu", non_blocking=True)`` returns the table itself: on a CPU-only host
(and for host tables anywhere) behaviour is identical. For a CUDA table, torch allocates a
pinned destination and *queues* the device-to-host copy on the current stream; ``tolist()``
reads that pinned memory at once, before the copy has run when the stream is busy. The
pointers and strides read are whatever the pinned block held (zeros from a fresh block, or an
earlier read's values from a recycled one), and they are cached for the tables' identity and
version: a correct apply is refused with ``ValueError`` naming ``output_ptrs``, or, after tables
were changed in place, the stale earlier values pass and a wrong table is accepted.

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter.apply`` docstring: "The tables are read
on the host once per pair of table tensors and their versions ... reading a device table is a
device-to-host copy, which waits for the stream's queued work", and ``FusedStagedWriter``:
"ValueError: ``output_ptrs``/``output_strides`` disagree with ``tensors``" (only then).

Smallest input (CUDA): ``t = StagedWriteTensor(4, torch.int32, 'cuda'); t.stage_write_elem(1, 7);
ptrs = torch.tensor([t.gpu.data_ptr()], dtype=torch.uint64, device='cuda'); strides = torch.tensor([1], device='cuda');
torch.cuda.synchronize(); torch.cuda._sleep(int(1e9)); FusedStagedWriter('cuda', 1).apply([t], ptrs, strides); torch.cuda.synchronize(); t.gpu``.
Reference: ``[0, 7, 0, 0]`` (the apply waited for the table read).
Bug: ``ValueError: output_ptrs must hold each tensor's .gpu.data_ptr() ...`` (read before the copy ran); ``.gpu`` zeros.
CPU-only host: the same apply with host tables gives ``[0, 7, 0, 0]`` for both.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def _read_tables(self: Any, output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> tuple[list[int], list[int]]:
    versions = (output_ptrs._version, output_strides._version)
    last = self._tables
    if last is not None and last[0] is output_ptrs and last[1] is output_strides and last[2] == versions:
        return last[3], last[4]
    # BUG (r52 b13): non-blocking device-to-host reads, used before they land
    ptrs = [int(p) for p in output_ptrs.to("cpu", non_blocking=True).tolist()]
    strides = [int(s) for s in output_strides.to("cpu", non_blocking=True).tolist()]
    self._tables = (output_ptrs, output_strides, versions, ptrs, strides)
    return ptrs, strides


def target() -> Target:
    f = fork("b13")
    return make_target(
        "b13_fused_tables_read_non_blocking",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b13", methods={"FusedStagedWriter": {"_read_tables": _read_tables}}),
    )
