"""b12 (CPU-visible, buffer_utils.py ``_write``): staged writes are stored with ``index_put_(..., accumulate=True)``: a write onto an element that already holds a value adds to it instead of replacing it.

What changed: ``gpu.view(-1).index_copy_(0, where, values)`` became
``gpu.view(-1).index_put_((where,), values, accumulate=True)``.

Why an engineer would write it: torch documents ``index_put_`` with
``accumulate=True`` as the deterministic CUDA path for indexed stores, and the positions
are already deduplicated (last write wins) two lines up, so "accumulate" looks like a
harmless determinism switch. It is a sum: every first write into a zero-initialised
``.gpu`` is right, which is all a one-apply test sees; a row rewritten by a later step
(block tables extended, a slot reused) gets old + new.

Promise broken: ``StagedWriteTensor`` docstring: "``apply_write()`` writes every staged
write into ``.gpu`` on the current stream, in staging order (a later write of the same
element wins)"; docs/reference.md, Model Runner V2: "overlapping staged writes apply in
staging order (the last staged write of an element wins) ... writes once with
``index_copy_``"; docs/contracts.md staged-write: "After each apply ``.gpu`` equals a numpy
model bit for bit". ``FusedStagedWriter.apply`` (same ``_write``) adds the same way.

Smallest input: ``t = StagedWriteTensor(4, torch.int32, 'cpu'); t.stage_write_elem(0,
5); t.apply_write(); t.stage_write_elem(0, 7); t.apply_write(); t.gpu``.

Reference result: ``[7, 0, 0, 0]``.
Bug result: ``[12, 0, 0, 0]`` (the first apply alone is right: ``[5, 0, 0, 0]``).
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import make_target


def _write(gpu: torch.Tensor, positions: np.ndarray, contents: torch.Tensor) -> None:
    """``gpu.view(-1)[positions] = contents`` with the last write of a position winning, on ``gpu``'s current stream."""
    _, last_rev = np.unique(positions[::-1], return_index=True)
    keep = np.sort(len(positions) - 1 - last_rev)  # the last write of each position, in staging order
    where = async_tensor_h2d(positions[keep], device=gpu.device)
    # BUG: was `gpu.view(-1).index_copy_(0, where, ...)`; accumulate=True taken for a determinism flag, it adds
    gpu.view(-1).index_put_(
        (where,), contents.index_select(0, async_tensor_h2d(keep, device=gpu.device)), accumulate=True
    )


def target() -> Target:
    ns = bu_fork("b12", names={"_write": _write})
    return make_target("b12_staged_write_accumulates", buffer_utils=ns)
