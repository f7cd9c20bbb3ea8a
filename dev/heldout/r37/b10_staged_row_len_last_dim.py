"""StagedWriteTensor.__init__ takes a row's length as ``shape[-1]``: a 1-D tensor's "row" is the whole tensor.

What changed: ``self._row_len = int(np.prod(shape[1:])) if len(shape) > 1 else 1``
became ``self._row_len = shape[-1]``.

Why an engineer would write it: "the row length is the size of the last dimension": true
for the 2-D block tables the engineer had in mind, and ``np.prod`` over the trailing
dimensions looks like over-engineering.

Promise broken (contract staged-write; StagedWriteTensor's docstring): "a 1-D tensor's
rows are single elements (``start`` 0, one value)". With the bug row ``i`` of a 1-D
tensor of ``N`` elements starts at flat position ``i * N``: any write past row 0 lands
outside the tensor, and writes of several values into one "row" are accepted.

Smallest input: ``t = StagedWriteTensor(2, torch.int32, "cpu"); t.stage_write_elem(1, 7);
t.apply_write()``: reference ``.gpu == [0, 7]``; bug: IndexError from ``index_copy_``
(flat position 2 of a 2-element tensor) at apply time.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _init(self, size, dtype, device, max_concurrency=None, uva_instead_of_gpu=False):  # type: ignore[no-untyped-def]
    shape = _shape(size)  # noqa: F821
    self.dtype = _dtype(dtype, STAGED_WRITE_DTYPES)  # noqa: F821
    self.num_rows = shape[0]
    self.device = torch.device(device)  # noqa: F821
    self.max_concurrency = DEFAULT_MAX_CONCURRENCY if max_concurrency is None else max_concurrency  # noqa: F821
    self._row_len = shape[-1]  # BUG: the last dimension, not the product of the trailing ones (1 for a 1-D tensor)
    if uva_instead_of_gpu and uva_available():  # noqa: F821
        self._uva_buf = UvaBuffer(shape, dtype)  # noqa: F821
        self.gpu = self._uva_buf.uva()
    else:
        self._uva_buf = None
        self.gpu = torch.zeros(shape, dtype=dtype, device=self.device)  # noqa: F821
    self._staged_write_indices = []
    self._staged_write_starts = []
    self._staged_write_contents = []
    self._staged_write_cu_lens = []
    self._staged_write_max_len = 0


class StagedWriteTensor(REF.StagedWriteTensor):
    __init__ = rebind(_init)


def target() -> Target:
    return make_target("staged_row_len_last_dim", StagedWriteTensor=StagedWriteTensor)
