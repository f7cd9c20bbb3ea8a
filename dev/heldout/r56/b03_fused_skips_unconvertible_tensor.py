"""b03 (CPU): ``FusedStagedWriter.apply`` skips a tensor whose staged values cannot be converted, writes the rest, and clears all.

Where: ``h2d_impl/buffer_utils.py::FusedStagedWriter.apply`` (the conversion step).

Change: best effort per tensor ("one request's bad logit bias must not fail the whole step's block
tables: write what can be written")::

    pending = [t for t in tensors if t._staged_write_indices]                     # reference
    converted = [_converted(t) for t in pending]

    pending, converted = [], []                                                  # bug
    for t in tensors:
        if not t._staged_write_indices:
            continue
        try:
            converted.append(_converted(t))
        except (ValueError, OverflowError, TypeError):
            continue
        pending.append(t)

The tables are still checked first, and the tensors that convert are written exactly as before.
A tensor holding a value its dtype cannot hold (``2**31`` in an int32 block table) is no longer
refused: the apply returns normally, that tensor's ``.gpu`` is left as it was, and the final
clearing loop (over every tensor, unchanged) drops its staged writes, so applying again writes
nothing and raises nothing: the write is lost without a trace, where its own ``apply_write()``
raises and keeps it staged.

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter``: "``apply(tensors, output_ptrs,
output_strides)`` leaves every tensor as its own ``apply_write()`` would"; ``StagedWriteTensor.apply_write``:
"Raises: ValueError, TypeError: a staged value the dtype cannot hold ...; nothing is written and the
writes stay staged"; docs/contracts.md, fused-writes: "A fused apply that cannot be done whole is
refused before any tensor is written (... a value past int32 in one of two tensors ...); a refused
apply leaves every ``.gpu`` as it was and applying again raises again".

Smallest input: ``a = StagedWriteTensor(1, torch.int32, 'cpu'); b = StagedWriteTensor(1, torch.int32, 'cpu');
a.stage_write_elem(0, 2**31); b.stage_write_elem(0, 7); w = FusedStagedWriter('cpu', 2);
w.apply([a, b], ptrs(a, b), strides(a, b))``; then ``a.gpu``, ``b.gpu`` and a second apply.
Reference: ``ValueError: data[0] = 2147483648 is out of range for torch.int32 ...``; ``a.gpu == [0]``,
``b.gpu == [0]``; the second apply raises the same. Bug: returns None; ``a.gpu == [0]``, ``b.gpu == [7]``;
the second apply returns None (``a``'s write gone).
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
    pending: list[Any] = []
    converted: list[Any] = []
    for t in tensors:
        if not t._staged_write_indices:
            continue
        try:
            converted.append(_converted(t))
        except (ValueError, OverflowError, TypeError):  # BUG (r56 b03): one tensor's bad values skipped, not refused
            continue
        pending.append(t)
    for t, (positions, contents) in zip(pending, converted, strict=True):
        _write(t.gpu, positions, contents)
    for t in tensors:
        t.clear_staged_writes()


def target() -> Target:
    f = fork("b03")
    return make_target(
        "b03_fused_skips_unconvertible_tensor",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b03", methods={"FusedStagedWriter": {"apply": apply}}),
    )
