"""b01 (CPU): a fused apply checks the tables against the tensors only when it reads them; a cache hit skips the checks.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter.apply``.

Change: the two table checks were moved under "tables read just now" ("tables served from the
cache were validated on the read that cached them")::

    ptrs, strides = self._read_tables(output_ptrs, output_strides)            # reference
    if ptrs != [t.gpu.data_ptr() for t in tensors]: raise ValueError(...)
    if strides != [t.gpu.stride(0) for t in tensors]: raise ValueError(...)

    cached = <same table tensors at the same versions as the last read>        # bug
    ptrs, strides = self._read_tables(output_ptrs, output_strides)
    if not cached:
        if ptrs != ...: raise ValueError(...)
        if strides != ...: raise ValueError(...)

The tables were validated against the tensors *of that call*; the cache is keyed by the tables
only. The same unchanged tables passed with other tensors (another batch's tensors, a reordered
list) are applied without a check: the first apply is right, the second writes what the tables
do not describe.

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter``: "Raises: ValueError:
``output_ptrs``/``output_strides`` disagree with ``tensors``; nothing written"; ``apply``:
"ValueError naming the argument when the tables disagree"; docs/contracts.md, fused-writes:
"A fused apply that cannot be done whole is refused before any tensor is written".

Smallest input: ``a, b = StagedWriteTensor(2, torch.int32, 'cpu')`` x2; ``w = FusedStagedWriter('cpu', 1)``;
``ptrs = [a.gpu.data_ptr()]`` (uint64), ``strides = [1]``; ``w.apply([a], ptrs, strides)``;
``b.stage_write_elem(0, 7); w.apply([b], ptrs, strides)``.
Reference: second apply ``ValueError: output_ptrs must hold ...``; ``b.gpu == [0, 0]``.
Bug: no error; ``b.gpu == [7, 0]`` (applied under tables that name ``a``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def apply(self: Any, tensors: Sequence[Any], output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
    last = self._tables
    cached = (
        last is not None
        and last[0] is output_ptrs
        and last[1] is output_strides
        and last[2] == (output_ptrs._version, output_strides._version)
    )
    ptrs, strides = self._read_tables(output_ptrs, output_strides)
    if not cached:  # BUG (r53 b01): tables from the cache are trusted, whatever tensors come with them
        if ptrs != [t.gpu.data_ptr() for t in tensors]:
            raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
        if strides != [t.gpu.stride(0) for t in tensors]:
            raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    pending = [t for t in tensors if t._staged_write_indices]
    converted = [_converted(t) for t in pending]  # noqa: F821  (the reference module's global)
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)  # noqa: F821
    for t in tensors:
        t.clear_staged_writes()


def target() -> Target:
    f = fork("b01")
    return make_target(
        "b01_fused_checks_skipped_on_cached_tables",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b01", methods={"FusedStagedWriter": {"apply": apply}}),
    )
