"""b15 (CPU): every ``apply_write`` of a 1-D ``StagedWriteTensor`` raises: its staged positions are float64.

Where: h2d_impl/buffer_utils.py, ``StagedWriteTensor.__init__``.
Change: ``self._row_len = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1`` ->
    ``self._row_len = np.prod(shape[1:])``.
Why plausible: a tidy-up: "the product of no dimensions is 1, so the special case and the casts
    are noise". ``np.prod(())`` is indeed 1, but ``1.0``, a float64 (numpy's default dtype for an
    empty product); for 2-D and wider shapes it is an int64 and everything works.
Promise broken: StagedWriteTensor's docstring: "a 1-D tensor's rows are single elements (``start``
    0, one value)", ``apply_write()`` "writes every staged write into ``.gpu``"; contracts.md
    staged-write: "1-6 rows, 1-D or rows of 1 to 2,100 elements ... After each apply ``.gpu``
    equals a numpy model".
Smallest input:
    t = StagedWriteTensor(4, torch.int32, "cpu"); t.stage_write(1, 0, [7]); t.apply_write()
Reference: ``t.gpu == [0, 7, 0, 0]``. Bug: ``RuntimeError: index_copy_(): Expected a long tensor for
    index, but got Double`` (``index * 1.0 + start`` made the positions float64); the write stays
    staged and every later apply raises again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target


def __init__(  # noqa: N807
    self,
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
    self._row_len = np.prod(shape[1:])  # BUG: np.prod(()) is 1.0, a float64, for 1-D tensors
    if uva_instead_of_gpu and uva_available():  # noqa: F821
        self._uva_buf: Any = UvaBuffer(shape, dtype)  # noqa: F821
        self.gpu = self._uva_buf.uva()
    else:
        self._uva_buf = None
        self.gpu = torch.zeros(shape, dtype=dtype, device=self.device)
    self._staged_write_indices: list[int] = []
    self._staged_write_starts: list[int] = []
    self._staged_write_contents: list[int | float] = []
    self._staged_write_cu_lens: list[int] = []
    self._staged_write_max_len = 0


def classes():
    return bu_fork("b15", methods={"StagedWriteTensor": {"__init__": __init__}})


def target() -> Target:
    return bu_target("b15", "b15_staged_row_len_float", classes())
