"""b13 (CPU): ``StagedWriteTensor``'s row length as ``prod(shape[1:]) or 1``: rows of zero elements get one, writes into them are staged and the apply fails.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.__init__`` (``_row_len``, which ``_check``
and ``staged_positions`` read).

Change (the 1-D conditional folded into an ``or``)::

    self._row_len = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1   # reference
    self._row_len = int(np.prod(shape[1:], dtype=np.int64)) or 1                         # bug: "prod(()) is 1 anyway; never 0"

For 1-D tensors ``np.prod(())`` is 1 either way, and every tensor with non-empty rows is
unchanged. A tensor whose rows hold no element (``(2, 0)``, ``(3, 4, 0)``: a table sized by a
batch dimension that is 0 this run) now has rows of length 1: ``stage_write(0, 0, [5])`` is
staged instead of refused, its flat position 0 lies past the empty ``.gpu``, and
``apply_write()`` raises ``RuntimeError`` from ``index_copy_`` (``setStorage: ... out of bounds
for storage of size 0``: a type the contracts never accept, naming no argument); since a failed
apply keeps its writes, every later apply of that tensor fails until ``clear_staged_writes()``.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor`` docstring: "``start + len(x)``
past the row, is refused at staging time and nothing is staged"; ``stage_write`` docstring,
Raises: "IndexError: ... ``start + len(x)`` past the row"; docs/contracts.md, staged-write: "A
write ... past its row's end ... raises `IndexError` or `ValueError` naming `index` or `start`
..., and nothing is staged".

Smallest input: ``t = StagedWriteTensor((2, 0), torch.int32, 'cpu'); t.stage_write(0, 0, [5])``.
Reference: ``IndexError: start=0 with 1 values is outside a row of 0 elements``. Bug: staged;
``t.apply_write()`` raises ``RuntimeError: setStorage: sizes [1], strides [0], storage offset 0,
... out of bounds for storage of size 0``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def __init__(
    self,
    size: int | Sequence[int],
    dtype: torch.dtype,
    device: torch.device | str,
    max_concurrency: int | None = None,
    uva_instead_of_gpu: bool = False,
) -> None:
    shape = _shape(size)  # noqa: F821
    self.dtype = _dtype(dtype, STAGED_WRITE_DTYPES)  # noqa: F821
    self.num_rows = shape[0]
    self.device = torch.device(device)
    self.max_concurrency = DEFAULT_MAX_CONCURRENCY if max_concurrency is None else max_concurrency  # noqa: F821
    self._row_len = int(np.prod(shape[1:], dtype=np.int64)) or 1  # BUG (r51 b13): zero-width rows get length 1
    if uva_instead_of_gpu and uva_available():  # noqa: F821
        self._uva_buf = UvaBuffer(shape, dtype)  # noqa: F821
        self.gpu = self._uva_buf.uva()
    else:
        self._uva_buf = None
        self.gpu = torch.zeros(shape, dtype=dtype, device=self.device)
    self._staged_write_indices: list[int] = []
    self._staged_write_starts: list[int] = []
    self._staged_write_contents: list[int | float] = []
    self._staged_write_cu_lens: list[int] = []
    self._staged_write_max_len = 0


def target() -> Target:
    f = fork("b13")
    return make_target(
        "b13_staged_zero_width_rows",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b13", methods={"StagedWriteTensor": {"__init__": __init__}}),
    )
