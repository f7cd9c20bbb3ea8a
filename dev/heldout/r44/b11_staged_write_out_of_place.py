"""b11 (CPU): staged writes are applied with the out-of-place ``index_copy``, so ``apply_write`` writes nothing.

Where: ``buffer_utils._write`` (the one write of ``StagedWriteTensor.apply_write`` and of
``FusedStagedWriter.apply``).

The change (one character)::

    gpu.view(-1).index_copy_(0, where, contents.index_select(0, ...))
    ->
    gpu.view(-1).index_copy(0, where, contents.index_select(0, ...))

Why an engineer writes it: the two spellings differ only by the trailing underscore;
while reworking the call (deduplication, the ``index_select`` of the last write of each
position) the in-place form is lost and nothing complains: the out-of-place op builds a
new tensor that is dropped, no exception, no warning. The staged writes are then cleared
as "applied", so they are lost for good.

Promise broken: ``StagedWriteTensor`` docstring: "``apply_write()`` writes every staged
write into ``.gpu`` on the current stream, in staging order ..., and clears them";
``FusedStagedWriter`` docstring: "leaves every tensor as its own ``apply_write()`` would";
README ``staged-write`` ("against a numpy model (the last staged write wins)") and
``fused-writes``; docs/reference.md "Model Runner V2's transfer utilities".

Smallest input: ``t = StagedWriteTensor(4, torch.int32, "cpu"); t.stage_write(1, 0, [7]);
t.apply_write(); t.gpu``.
Reference: ``tensor([0, 7, 0, 0], dtype=torch.int32)``. Bug: ``tensor([0, 0, 0, 0],
dtype=torch.int32)`` (and nothing left staged).
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import fork, make_target


def _write(gpu: torch.Tensor, positions: np.ndarray, contents: torch.Tensor) -> None:
    """``gpu.view(-1)[positions] = contents`` with the last write of a position winning, on ``gpu``'s current stream."""
    _, last_rev = np.unique(positions[::-1], return_index=True)
    keep = np.sort(len(positions) - 1 - last_rev)  # the last write of each position, in staging order
    where = async_tensor_h2d(positions[keep], device=gpu.device)  # noqa: F821 (bound in the module's globals)
    # BUG: out-of-place index_copy (its result is dropped) where index_copy_ was meant
    gpu.view(-1).index_copy(0, where, contents.index_select(0, async_tensor_h2d(keep, device=gpu.device)))  # noqa: F821


def classes():
    return bu_fork("b11", names={"_write": _write})


def target() -> Target:
    f = fork("b11")
    return make_target(
        "b11_staged_write_out_of_place",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=classes(),
    )
