"""CpuGpuBuffer with a capacity of 1024 rows or more rounds ``copy_to_gpu(n)`` up to a
multiple of 256 rows (aligned, fixed-size DMAs; "rows past n are scratch anyway"), so
rows [n, roundup(n)) of .gpu are overwritten with .cpu's rows."""

from __future__ import annotations

from h2d_contracts import h2d_impl

from ._common import make_target

MIN_CAPACITY = 1024
ALIGN = 256


class CpuGpuBuffer(h2d_impl.CpuGpuBuffer):
    def copy_to_gpu(self, n=None):
        n = self._rows(n)
        if n is None or self.capacity < MIN_CAPACITY:
            return super().copy_to_gpu(n)
        m = min(self.capacity, -(-n // ALIGN) * ALIGN)  # BUG: copies more than n rows
        self.gpu[:m].copy_(self.cpu[:m], non_blocking=True)
        return self.gpu[:n]


def target():
    return make_target("b06-buffer-aligned-overcopy", buffer_cls=CpuGpuBuffer)
