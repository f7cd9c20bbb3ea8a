"""CpuGpuBuffer.copy_to_gpu() with n=None copies only up to the high-water mark of the
earlier copy_to_gpu(n) calls ("rows past the largest n ever used were never filled").
A first full copy is complete; after copy_to_gpu(k), a full copy misses rows [k, capacity)."""

from __future__ import annotations

from h2d_contracts import h2d_impl

from ._common import make_target


class CpuGpuBuffer(h2d_impl.CpuGpuBuffer):
    _high_water = None

    def copy_to_gpu(self, n=None):
        n = self._rows(n)
        if n is not None:
            self._high_water = max(self._high_water or 0, n)
            return super().copy_to_gpu(n)
        if self._high_water is None:
            return super().copy_to_gpu(None)
        hw = self._high_water  # BUG: rows written after that mark are not copied
        self.gpu[:hw].copy_(self.cpu[:hw], non_blocking=True)
        return self.gpu


def target():
    return make_target("b12-buffer-full-copy-high-water", buffer_cls=CpuGpuBuffer)
