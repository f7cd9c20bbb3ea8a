"""b04 (CPU): staged contents are converted into one persistent scratch tensor per (device, dtype), shared by every staged tensor.

Where: ``h2d_impl/buffer_utils.py::_converted`` (every ``StagedWriteTensor.apply_write`` and ``FusedStagedWriter.apply``).

Change: an allocation saved per apply ("``async_tensor_h2d`` makes a fresh device tensor for the contents at
every apply, every step: convert into a persistent buffer instead, one per device and dtype, grown like a
pool slot; the block tables of every KV-cache group are int32, so they share one")::

    return positions, async_tensor_h2d(values, device=t.gpu.device, dtype=t.gpu.dtype)        # reference

    buf = _CONTENTS.get((t.gpu.device, t.gpu.dtype))                                          # bug
    if buf is None or buf.numel() < len(values):
        buf = _CONTENTS[key] = torch.empty(max(len(values), 1024), dtype=t.gpu.dtype, device=t.gpu.device)
    return positions, async_tensor_h2d(values, out=buf[: len(values)])

The conversion is the same (``out=`` validates and converts as ``dtype=`` does), and a tensor's own
``apply_write`` converts, then writes, so it reads its own contents. The fused writer is different by
design: it converts every pending tensor first (so a bad value refuses the whole apply before anything is
written), then writes them. With one scratch per dtype, the second tensor's conversion overwrites the
first's contents before the first is written: every int32 tensor of a fused apply but the last receives
the last one's values (as far as they reach).

Promise broken: h2d_impl/buffer_utils.py ``FusedStagedWriter``: "``apply(tensors, output_ptrs, output_strides)`` leaves
every tensor as its own ``apply_write()`` would"; ``_converted``'s docstring: "its staged values on ``.gpu``'s device
in its dtype: converted ... by ``async_tensor_h2d``, staged: a snapshot"; docs/contracts.md, fused-writes: "leaves
every tensor bit-identical to a twin given its own ``apply_write()``".

Smallest input: ``a, b = StagedWriteTensor(1, torch.int32, 'cpu')`` x2; ``a.stage_write_elem(0, 1);
b.stage_write_elem(0, 2); FusedStagedWriter('cpu', 2).apply([a, b], ptrs(a, b), strides(a, b)); a.gpu, b.gpu``.
Reference: ``a.gpu == [1]``, ``b.gpu == [2]``. Bug: ``a.gpu == [2]``, ``b.gpu == [2]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: async_tensor_h2d; _CONTENTS bound by target())


def _converted(t: Any) -> tuple[np.ndarray, torch.Tensor]:
    """``t``'s staged positions, and its staged values on ``.gpu``'s device in its dtype (validated, staged)."""
    positions, values = t.staged_positions()
    key = (t.gpu.device, t.gpu.dtype)
    buf = _CONTENTS.get(key)
    if buf is None or buf.numel() < len(values):  # grown like a pool slot
        buf = _CONTENTS[key] = torch.empty(max(len(values), 1024), dtype=t.gpu.dtype, device=t.gpu.device)
    return positions, async_tensor_h2d(values, out=buf[: len(values)])  # BUG (r57 b04): one buffer for every tensor


def target() -> Target:
    f = fork("b04")
    return make_target(
        "b04_staged_contents_scratch_per_dtype",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04", names={"_converted": _converted, "_CONTENTS": {}}),
    )
