"""b17 (GPU-only): the staged writes' selection index left in host memory (``torch.from_numpy``) for a device ``index_select``.

Where: ``h2d_impl/buffer_utils.py::_write`` (every ``StagedWriteTensor.apply_write`` and
``FusedStagedWriter.apply``).

Change (one line)::

    contents.index_select(0, async_tensor_h2d(keep, device=gpu.device))   # reference: the index on gpu's device
    contents.index_select(0, torch.from_numpy(keep))                      # bug: "no upload needed for an index"

Written and tested on a CPU machine, where ``contents`` is a host tensor too, so it works
there. On CUDA ``contents`` (the staged values, sent by ``async_tensor_h2d``) is on the
device and ``index_select`` refuses a host index: every apply raises ``RuntimeError``
("Expected all tensors to be on the same device ... argument index in method
wrapper_CUDA__index_select"); the writes stay staged and ``.gpu`` is never written.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor`` docstring: "``apply_write()``
writes every staged write into ``.gpu`` on the current stream, in staging order"; its
``apply_write`` Raises lists only "ValueError, TypeError: a staged value the dtype cannot hold";
docs/contracts.md, staged-write: "After each apply `.gpu` equals a numpy model bit for bit"
(and each contract "runs on the CPU ... and on CUDA"); fused-writes.

On a CPU-only host every public call behaves as the control's (device tensors are host
tensors there and the index is already where ``contents`` is).

GPU input: ``t = StagedWriteTensor(4, torch.int32, 'cuda'); t.stage_write_elem(1, 7); t.apply_write()``.
Reference: ``t.gpu == [0, 7, 0, 0]``. Bug: ``RuntimeError`` (device mismatch), ``t.gpu`` zeros.
"""

from __future__ import annotations

import numpy as np
import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def _write(gpu: torch.Tensor, positions: np.ndarray, contents: torch.Tensor) -> None:
    """``gpu.view(-1)[positions] = contents`` with the last write of a position winning, on ``gpu``'s current stream."""
    _, last_rev = np.unique(positions[::-1], return_index=True)
    keep = np.sort(len(positions) - 1 - last_rev)  # the last write of each position, in staging order
    where = async_tensor_h2d(positions[keep], device=gpu.device)
    gpu.view(-1).index_copy_(0, where, contents.index_select(0, torch.from_numpy(keep)))  # BUG (r48 b17): a host index


def target() -> Target:
    f = fork("b17")
    return make_target(
        "b17_host_index_for_device",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b17", names={"_write": _write}),
    )
