"""CpuGpuBuffer with a capacity of 512 rows or more reads back through a fresh host
tensor (``.gpu[:n].to("cpu")``, one D2H into new memory) and then copies it into .cpu;
copy_to_cpu(n) returns that temporary instead of the view .cpu[:n]. The values are
right, but the returned tensor is not .cpu's storage: later writes to .cpu/.np are not
seen through it, and writes into it do not reach .cpu."""

from __future__ import annotations

from h2d_contracts import h2d_impl

from ._common import make_target

MIN_CAPACITY = 512


class CpuGpuBuffer(h2d_impl.CpuGpuBuffer):
    def copy_to_cpu(self, n=None):
        n = self._rows(n)
        if self.capacity < MIN_CAPACITY:
            return super().copy_to_cpu(n)
        src = self.gpu if n is None else self.gpu[:n]
        tmp = src.to("cpu", copy=True)
        (self.cpu if n is None else self.cpu[:n]).copy_(tmp)
        return tmp  # BUG: not the view of .cpu


def target():
    return make_target("b16-buffer-d2h-returns-temp", buffer_cls=CpuGpuBuffer)
