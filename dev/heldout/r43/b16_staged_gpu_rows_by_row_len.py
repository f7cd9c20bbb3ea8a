"""b16 (CPU): ``StagedWriteTensor.gpu`` is allocated as ``(num_rows, row_len)`` instead of the shape asked for.

Where: buffer_utils.py, ``StagedWriteTensor.__init__``.
Change: ``self.gpu = torch.zeros(shape, dtype=dtype, device=self.device)`` ->
``torch.zeros((self.num_rows, self._row_len), dtype=dtype, device=self.device)``.
Why plausible: the writes address ``row * row_len + column``, so the developer stores the tensor "as the
kernel sees it"; for the common 2-D block tables the two shapes are the same.
Promise broken: StagedWriteTensor docstring: "size: the shape: rows first (an int: one element a row)";
"apply_write() writes every staged write into .gpu" (of that shape).
Smallest input:
    t = StagedWriteTensor(4, torch.int32, "cpu"); t.stage_write_elem(2, 7); t.apply_write()
    t.gpu
Reference: tensor([0, 0, 7, 0], dtype=torch.int32), shape (4,). Bug: tensor([[0], [0], [7], [0]]), shape (4, 1)
(a 3-D size (2, 3, 4) likewise becomes (2, 12)).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target

TAG = "b16"


def __init__(self, size, dtype, device, max_concurrency=None, uva_instead_of_gpu=False):
    shape = _shape(size)
    self.dtype = _dtype(dtype, STAGED_WRITE_DTYPES)
    self.num_rows = shape[0]
    self.device = torch.device(device)
    self.max_concurrency = DEFAULT_MAX_CONCURRENCY if max_concurrency is None else max_concurrency
    self._row_len = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1
    if uva_instead_of_gpu and uva_available():
        self._uva_buf = UvaBuffer(shape, dtype)
        self.gpu = self._uva_buf.uva()
    else:
        self._uva_buf = None
        self.gpu = torch.zeros((self.num_rows, self._row_len), dtype=dtype, device=self.device)  # BUG: was `shape`
    self._staged_write_indices = []
    self._staged_write_starts = []
    self._staged_write_contents = []
    self._staged_write_cu_lens = []
    self._staged_write_max_len = 0


def classes():
    return bu_fork(TAG, methods={"StagedWriteTensor": {"__init__": __init__}})


def target() -> Target:
    return bu_target(TAG, "b16_staged_gpu_rows_by_row_len", classes())
