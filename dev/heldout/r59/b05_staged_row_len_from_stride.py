"""b05 (CPU): a staged tensor's row length is taken as ``.gpu.stride(0)``, which torch makes at least 1 a dimension.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.__init__`` (``_row_len``: every bounds check and every
staged position).

Change: the row length read off the tensor, as vLLM's write kernel reads it ("the kernel's row stride is
``gpu.stride(0)``: use the same number, no product of the shape")::

    self._row_len = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1       # reference

    self._row_len = self.gpu.stride(0)                                                    # bug (after .gpu)

For every tensor with elements the two agree (``.gpu`` is contiguous). For a tensor with a zero-size dimension they
do not: torch computes contiguous strides with ``max(size, 1)`` for every dimension, so ``torch.zeros(2, 0)`` has
strides ``(1, 1)`` and ``torch.zeros(2, 3, 0)`` has ``(3, 1, 1)``. A zero-width row then counts 1 (or 3)
elements: ``stage_write(0, 0, [5])`` into a ``(2, 0)`` tensor is staged instead of refused, and the next
``apply_write`` fails inside torch (a write of position 0 into an empty tensor: ``RuntimeError: setStorage: ...
out of bounds for storage of size 0``), after
which the bad write stays staged, so every later apply of the tensor (good writes included) raises until someone
calls ``clear_staged_writes()``. Zero-width states are real: per-request draft-token tables with 0 speculative
tokens, a block table of a group with no blocks.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "``start + len(x)`` past the row, is refused at
staging time and nothing is staged"; docs/contracts.md, staged-write: "zero-width rows ...: into a zero-width row
only an empty write fits".

Smallest input: ``t = StagedWriteTensor((2, 0), torch.int32, 'cpu'); t.stage_write(0, 0, [5])``; then
``t.apply_write()``.
Reference: ``IndexError: start=0 with 1 values is outside a row of 0 elements``; nothing staged, the apply does
nothing. Bug: staged; ``apply_write()`` raises torch's ``RuntimeError: setStorage: sizes [1], strides [0], ...``, and
again on every later apply.
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
    self._row_len = self.gpu.stride(0)  # BUG (r59 b05): torch's strides count a zero-size dimension as 1
    self._staged_write_indices: list[int] = []
    self._staged_write_starts: list[int] = []
    self._staged_write_contents: list[int | float] = []
    self._staged_write_cu_lens: list[int] = []
    self._staged_write_max_len = 0


def target() -> Target:
    f = fork("b05")
    return make_target(
        "b05_staged_row_len_from_stride",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05", methods={"StagedWriteTensor": {"__init__": __init__}}),
    )
