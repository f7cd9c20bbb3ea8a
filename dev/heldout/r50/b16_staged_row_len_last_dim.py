"""b16 (CPU): ``StagedWriteTensor``'s row length taken as the last dimension (``shape[-1]``): for a tensor of 3 or more dimensions writes land in the wrong rows.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.__init__``, ``_row_len``.

Change (one expression)::

    self._row_len = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1   # reference
    self._row_len = shape[-1] if len(shape) > 1 else 1                                  # bug: "a row is the last dimension"

The same for 1-D and 2-D tensors (where ``shape[-1]`` is the product of ``shape[1:]``),
which is all the engineer's tests built. For ``(R, A, B)`` a row is ``A * B`` elements, but
staging now bounds ``start + len(x)`` by ``B`` and places row ``i`` at ``i * B``: a write of
a whole row is refused with ``IndexError``, and a short write to row ``i`` lands inside row
``i * B // (A * B)`` (``stage_write_elem(1, 5)`` into ``(2, 2, 2)`` writes ``.gpu[0, 1, 0]``).

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor`` docstring: "size: the shape:
rows first" and "``stage_write(index, start, x)`` stages ``x`` into row ``index`` from column
``start``; ``apply_write()`` writes every staged write into ``.gpu``"; ``staged_positions``
docstring: "The staged writes as flat element positions of ``.gpu``"; docs/contracts.md,
staged-write: "After each apply `.gpu` equals a numpy model bit for bit".

Smallest input: ``t = StagedWriteTensor((2, 2, 2), torch.int32, 'cpu'); t.stage_write_elem(1, 5);
t.apply_write(); t.gpu``.
Reference: ``[[[0, 0], [0, 0]], [[5, 0], [0, 0]]]``. Bug: ``[[[0, 0], [5, 0]], [[0, 0], [0, 0]]]``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def __init__(
    self,
    size: int | Sequence[int],
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
    self._row_len = shape[-1] if len(shape) > 1 else 1  # BUG (r50 b16): the last dimension, not the row's product
    if uva_instead_of_gpu and uva_available():
        self._uva_buf: UvaBuffer | None = UvaBuffer(shape, dtype)
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
    f = fork("b16")
    return make_target(
        "b16_staged_row_len_last_dim",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b16", methods={"StagedWriteTensor": {"__init__": __init__}}),
    )
