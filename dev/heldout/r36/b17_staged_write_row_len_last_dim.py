"""``StagedWriteTensor``'s row length is taken as the last dimension.

What changed: ``StagedWriteTensor.__init__`` set ``_row_len`` to the product of the
dimensions after the first (1 for a 1-D tensor, whose rows are single elements). The
change writes ``self._row_len = shape[-1]``: "a row is the last dimension", which is the
same thing for the 2-D block tables it was written for.

Why an engineer writes it: for every 2-D table (the common case) both formulas agree, and
``shape[-1]`` drops a numpy call from the constructor.

Promise broken: docs/reference.md ("What the reference keeps of vLLM's design: ... a 1-D
``StagedWriteTensor``'s rows being single elements") and contracts "staged-write" (1-D
tensors or rows of 1 to 2,100 elements; out-of-bounds writes refused, nothing staged). For
a 1-D tensor of N elements the "row" becomes N long: ``stage_write(i, 0, [v])`` lands at
flat position ``i * N`` (past the tensor for ``i >= 1``: ``apply_write`` raises inside
torch's ``index_copy_``), and ``stage_write(0, 0, [a, b, c])`` is accepted where the
reference refuses it. A 3-D tensor's rows lose their middle dimension the same way.

Smallest input: ``t = StagedWriteTensor(2, torch.int32, "cpu"); t.stage_write(1, 0, [5]);
t.apply_write()``: reference ``t.gpu == [0, 5]``; bug ``IndexError`` from ``index_copy_`` (position
2 of 2 elements), ``t.gpu`` unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl.buffer_utils import (
    DEFAULT_MAX_CONCURRENCY,
    STAGED_WRITE_DTYPES,
    StagedWriteTensor,
    UvaBuffer,
    _dtype,
    _shape,
    uva_available,
)

from ._common import buffer_utils_ns, make_target


class LastDimStagedWriteTensor(StagedWriteTensor):
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
        self._row_len = shape[-1]  # BUG: was int(np.prod(shape[1:])) if len(shape) > 1 else 1
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
    return make_target(
        "b17_staged_write_row_len_last_dim",
        buffer_utils=buffer_utils_ns(StagedWriteTensor=LastDimStagedWriteTensor),
    )
