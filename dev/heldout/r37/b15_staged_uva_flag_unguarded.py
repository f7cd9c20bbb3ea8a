"""StagedWriteTensor.__init__ honours ``uva_instead_of_gpu=True`` without asking whether UVA is available.

What changed: ``if uva_instead_of_gpu and uva_available():`` became
``if uva_instead_of_gpu:``.

Why an engineer would write it: "``UvaBuffer`` checks availability itself and raises a
clear RuntimeError; no need to check twice". But the reference (like vLLM: "Without UVA,
large-but-cold tensors live on the GPU directly") falls back to a plain device tensor
instead of failing.

Promise broken (StagedWriteTensor's docstring: ``uva_instead_of_gpu`` makes ``.gpu`` a UVA
view "when UVA is available"; constructors raise only ValueError for an unsupported dtype
and TypeError for a bad size): on a machine without UVA (no CUDA, or no pinned memory)
the constructor now raises RuntimeError.

Smallest input: ``StagedWriteTensor(1, torch.int32, "cpu", uva_instead_of_gpu=True)`` on
a CPU-only machine: reference ``.gpu == [0]`` on the host; bug RuntimeError("UVA is not
available").
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
    self._row_len = int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1  # noqa: F821
    if uva_instead_of_gpu:  # BUG: no uva_available() fallback; UvaBuffer raises RuntimeError without UVA
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
    return make_target("staged_uva_flag_unguarded", StagedWriteTensor=StagedWriteTensor)
