"""b22 (CPU-visible): staged writes are stored with ``Tensor.put_``, which deterministic mode refuses.

Where: ``h2d_impl/buffer_utils.py``, ``_write`` (used by ``StagedWriteTensor.apply_write`` and
``FusedStagedWriter.apply``).

Change: ``gpu.view(-1).index_copy_(0, where, contents...)`` ->
``gpu.put_(where, contents...)`` ("``put_`` takes flat positions directly: no ``view(-1)``").

Why plausible: ``put_`` is literally "write these values at these flat indices", the
positions are already deduplicated (so its nondeterminism with duplicates cannot bite),
and the values are identical. But torch lists ``put_(accumulate=False)`` among the ops that
raise under ``torch.use_deterministic_algorithms(True)`` on every device (``index_copy_``
has a deterministic implementation), a mode serving engines switch on for reproducible
or batch-invariant runs.

Promise broken: ``StagedWriteTensor.apply_write``: "Write every staged write into ``.gpu``
(current stream, staging order) and clear them" (its only documented errors are a value
the dtype cannot hold); docs/contracts.md staged-write / fused-writes (every apply equals
the numpy model); side-effects lists "the deterministic-algorithms flags" among the
process states a caller may have set.

Smallest input: ``torch.use_deterministic_algorithms(True); t = StagedWriteTensor(2, torch.int32, 'cpu');
t.stage_write(0, 0, [5]); t.apply_write()``.
Reference: ``t.gpu == tensor([5, 0])``.
Bug: ``RuntimeError: put_ does not have a deterministic implementation, but you set
'torch.use_deterministic_algorithms(True)'...``; nothing is written.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import make_target


def _write(gpu: torch.Tensor, positions: np.ndarray, contents: torch.Tensor) -> None:
    _, last_rev = np.unique(positions[::-1], return_index=True)
    keep = np.sort(len(positions) - 1 - last_rev)
    where = async_tensor_h2d(positions[keep], device=gpu.device)  # noqa: F821
    gpu.put_(where, contents.index_select(0, async_tensor_h2d(keep, device=gpu.device)))  # noqa: F821  BUG


def target() -> Target:
    return make_target("b22_staged_write_put_deterministic", buffer_utils=bu_fork("b22", names={"_write": _write}))
