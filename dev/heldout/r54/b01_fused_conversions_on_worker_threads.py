"""b01 (CPU): a fused apply converts each tensor's contents on the writer's own worker threads, which stay running.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter.apply`` (the conversion step).

Change: an optimisation ("the tensors' contents are independent: convert them concurrently, the
numpy and torch conversions release the GIL"). The writer keeps a thread pool, made at its first
apply with pending writes, and maps ``_converted`` over the pending tensors::

    converted = [_converted(t) for t in pending]                                  # reference

    ex = self.__dict__.get("_convert_pool")                                      # bug
    if ex is None:
        ex = self._convert_pool = ThreadPoolExecutor(4, thread_name_prefix="fused-convert")
    converted = list(ex.map(_converted, pending))

Every value is the reference's: ``list(ex.map(...))`` still converts (and so validates) every
tensor before any is written, and a refusal still propagates before the writes. But the pool's
worker threads outlive the call: after the first fused apply with writes the process has one more
thread per tensor converted (up to four), idle and alive for as long as the writer (Model Runner
V2 keeps its writer for the engine's life). Not a thread "a library starts once": each writer
starts its own.

Promise broken: README.md, contract ``side-effects``: "every call, valid or failing, leaves the
process as it found it: ... no thread left running"; docs/contracts.md, side-effects: "threads
the call started and left running".

Smallest input: ``t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write_elem(1, 7)``;
``w = FusedStagedWriter('cpu', 1); w.apply([t], ptrs(t), torch.tensor([1]))``; the threads
started by the call (``threading.enumerate()`` before and after, ``w`` alive).
Reference: ``t.gpu == [0, 7]``; no thread left. Bug: ``t.gpu == [0, 7]``; ``['fused-convert_0']`` left running.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _converted, _write)


def apply(self: Any, tensors: Sequence[Any], output_ptrs: torch.Tensor, output_strides: torch.Tensor) -> None:
    ptrs, strides = self._read_tables(output_ptrs, output_strides)
    if ptrs != [t.gpu.data_ptr() for t in tensors]:
        raise ValueError("output_ptrs must hold each tensor's .gpu.data_ptr(), in the order of tensors")
    if strides != [t.gpu.stride(0) for t in tensors]:
        raise ValueError("output_strides must hold each tensor's .gpu.stride(0), in the order of tensors")
    # every tensor's values converted (so validated) before any tensor is written
    pending = [t for t in tensors if t._staged_write_indices]
    if pending:
        ex = self.__dict__.get("_convert_pool")
        if ex is None:  # BUG (r54 b01): the writer's own worker threads, never shut down
            ex = self._convert_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="fused-convert")
        converted = list(ex.map(_converted, pending))
    else:
        converted = []
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)
    for t in tensors:
        t.clear_staged_writes()


def target() -> Target:
    f = fork("b01")
    return make_target(
        "b01_fused_conversions_on_worker_threads",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork(
            "b01",
            names={"ThreadPoolExecutor": ThreadPoolExecutor},
            methods={"FusedStagedWriter": {"apply": apply}},
        ),
    )
