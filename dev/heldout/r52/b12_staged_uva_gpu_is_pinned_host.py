"""b12 (GPU-only): a ``StagedWriteTensor`` made with ``uva_instead_of_gpu=True`` exposes the pinned host tensor as ``.gpu``.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.__init__`` (the UVA branch).

Change (one attribute)::

    self.gpu = self._uva_buf.uva()    # reference: the CUDA view of the pinned memory
    self.gpu = self._uva_buf.cpu      # bug: "pinned memory: kernels reach it through UVA at the same address anyway"

The branch runs only where UVA is available (a CUDA device and pinned memory); on a CPU-only
host ``.gpu`` is the plain tensor on ``device`` for both, and behaviour there is identical. On
CUDA, ``.gpu`` is a *host* tensor (``device == cpu``, same address as the view, so the fused
writer's pointer table still matches): every apply converts its values for the host and writes
them with ``index_copy_`` at the call, on the CPU, not on the stream (a kernel queued before the
apply and reading the tensor sees the new values), and any torch op mixing ``.gpu`` with CUDA
tensors raises a device mismatch.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor`` docstring: "``device``: where
``.gpu`` lives. ``uva_instead_of_gpu``: make ``.gpu`` a UVA view of pinned memory (when UVA is
available)" and "``apply_write()`` writes every staged write into ``.gpu`` on the current stream";
docs/contracts.md, staged-write: "Applies land in stream order (... device and UVA-backed ``.gpu``)".

Smallest input (CUDA): ``StagedWriteTensor(4, torch.int32, 'cuda', uva_instead_of_gpu=True).gpu.device``.
Reference: ``cuda:0``. Bug: ``cpu``; and ``t.gpu + torch.ones(4, dtype=torch.int32, device='cuda')``
raises ``RuntimeError`` (tensors on different devices) where the reference computes ``[1, 1, 1, 1]``.
CPU-only host: ``t = StagedWriteTensor(4, torch.int32, 'cpu', uva_instead_of_gpu=True); t.stage_write_elem(1, 7);
t.apply_write(); t.gpu`` is ``[0, 7, 0, 0]`` on the host for both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def __init__(
    self: Any,
    size: int | Sequence[int],
    dtype: torch.dtype,
    device: torch.device | str,
    max_concurrency: int | None = None,
    uva_instead_of_gpu: bool = False,
) -> None:
    shape = _shape(size)  # noqa: F821 (buffer_utils' globals)
    self.dtype = _dtype(dtype, STAGED_WRITE_DTYPES)  # noqa: F821
    self.num_rows = shape[0]
    self.device = torch.device(device)
    self.max_concurrency = DEFAULT_MAX_CONCURRENCY if max_concurrency is None else max_concurrency  # noqa: F821
    self._row_len = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1
    if uva_instead_of_gpu and uva_available():  # noqa: F821
        self._uva_buf = UvaBuffer(shape, dtype)  # noqa: F821
        self.gpu = self._uva_buf.cpu  # BUG (r52 b12): the pinned host tensor, not its UVA view
    else:
        self._uva_buf = None
        self.gpu = torch.zeros(shape, dtype=dtype, device=self.device)
    self._staged_write_indices = []
    self._staged_write_starts = []
    self._staged_write_contents = []
    self._staged_write_cu_lens = []
    self._staged_write_max_len = 0


def target() -> Target:
    f = fork("b12")
    return make_target(
        "b12_staged_uva_gpu_is_pinned_host",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b12", methods={"StagedWriteTensor": {"__init__": __init__}}),
    )
