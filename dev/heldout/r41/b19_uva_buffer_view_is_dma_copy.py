"""b19 (GPU-only): ``UvaBuffer.uva(n)`` returns a non-blocking DMA copy of the rows instead of the UVA view.

Where: ``UvaBuffer.uva`` (the ``n`` given branch; ``uva()`` with ``None`` still returns the view).

Change: ``return self._uva[: row_count(n, self.cpu.shape[0])]`` became
``return self.cpu[: row_count(n, self.cpu.shape[0])].to(self._uva.device, non_blocking=True)``.

Why plausible: "kernels reading a UVA view go over PCIe on every access; one DMA of the
rows is cheaper". The copy is queued on the current stream from pinned memory, so it
returns at once and carries the right values when nothing changes, and a reader queued
right behind it even sees host writes made before the DMA runs. But it is not the view:
it is device memory read once, at the DMA.

Promise broken: ``UvaBuffer``: "``uva(n)``: a device view of the same memory"; "A kernel reading
``uva(n)`` reads the host's bytes when it runs, not when ``uva`` was called"; docs/contracts.md
(uva): "On CUDA a ``UvaBuffer``'s view is read when the kernel runs"; docs/reference.md: "The
two are the same memory".

Smallest input (CUDA): ``b = UvaBuffer(4, torch.int32); v = b.uva(4);
torch.cuda.synchronize(); b.np[:] = 7; v.sum().item()``.
Reference: 28 (the view reads the host's 7s).
Bug: 0 (the copy was taken when ``.cpu`` held zeros); also ``v.data_ptr() != b.uva().data_ptr()``.
On a CPU host ``UvaBuffer`` raises ``RuntimeError`` (no UVA) in both, and pools use
``NonUvaBuffer``: the change is invisible there.
"""

from __future__ import annotations

import torch

from ._bu import bu_fork, bu_target

TAG, SHORT = "b19", "b19_uva_buffer_view_is_dma_copy"


def uva(self, n: int | None = None) -> torch.Tensor:
    """The device view of the first ``n`` rows (all if None); IndexError/TypeError naming ``n`` past ``[0, rows]``."""
    if n is None:
        return self._uva
    return self.cpu[: row_count(n, self.cpu.shape[0])].to(self._uva.device, non_blocking=True)  # noqa: F821  BUG


def classes():
    return bu_fork(TAG, methods={"UvaBuffer": {"uva": uva}})


def target():
    return bu_target(TAG, SHORT, classes())
