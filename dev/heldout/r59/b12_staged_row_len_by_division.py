"""b12 (CPU): a staged tensor's row length is its element count divided by its row count: a tensor of 0 rows fails.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.__init__`` (``_row_len``).

Change: the row length computed from the tensor just made ("elements per row: ``numel // rows``, whatever the
rank; no numpy product of the trailing shape")::

    self._row_len = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1        # reference

    self._row_len = self.gpu.numel() // self.num_rows                                       # bug (after .gpu)

Right for every tensor with at least one row (zero-width rows included: ``0 // rows == 0``). A tensor of no rows
divides by zero: ``StagedWriteTensor(0, ...)`` and ``StagedWriteTensor((0, 4), ...)`` raise
``ZeroDivisionError`` from the constructor, where the reference builds an empty tensor (on which every
``stage_write`` is refused as a row past the tensor). Engines size these tensors by configuration
(``max_num_reqs`` rows, one per KV-cache group or per draft position): a configuration with zero of them (no
speculative tokens, an encoder-only model with no KV-cache group) now fails at start-up with an error that names no
argument.

Promise broken: h2d_impl/buffer_utils.py ``_shape``: "``size`` as a shape of non-negative ints, at least one
dimension" (zero sizes are valid); ``StagedWriteTensor``: "Raises: ValueError: an unsupported ``dtype`` ...
TypeError: ``size`` not a shape" (nothing else at construction).

Smallest input: ``StagedWriteTensor((0, 4), torch.int32, 'cpu').gpu.shape``.
Reference: ``(0, 4)``. Bug: ``ZeroDivisionError: integer division or modulo by zero``.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _shape, _dtype, long_lived, uva_available, UvaBuffer, ...)


def __init__(
    self: Any,
    size: Any,
    dtype: torch.dtype,
    device: torch.device | str,
    max_concurrency: int | None = None,
    uva_instead_of_gpu: bool = False,
) -> None:
    shape = _shape(size)
    self.dtype = _dtype(dtype, STAGED_WRITE_DTYPES)
    self.num_rows = shape[0]
    self.device = torch.device(device)
    self.max_concurrency = DEFAULT_MAX_CONCURRENCY if max_concurrency is None else max_concurrency
    with long_lived():  # state kept across steps: normal tensors under inference_mode too
        if uva_instead_of_gpu and uva_available():
            self._uva_buf = UvaBuffer(shape, dtype)
            self.gpu = self._uva_buf.uva()
        else:
            self._uva_buf = None
            self.gpu = torch.zeros(shape, dtype=dtype, device=self.device)
    self._row_len = self.gpu.numel() // self.num_rows  # BUG (r59 b12): divides by zero for a tensor of 0 rows
    self._staged_write_indices: list[int] = []
    self._staged_write_starts: list[int] = []
    self._staged_write_contents: list[int | float] = []
    self._staged_write_cu_lens: list[int] = []
    self._staged_write_max_len = 0


def target() -> Target:
    f = fork("b12")
    return make_target(
        "b12_staged_row_len_by_division",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b12", methods={"StagedWriteTensor": {"__init__": __init__}}),
    )
