"""``CpuGpuBuffer.gpu`` is made as ``self.cpu.to(device)``: on a host device it *is* ``.cpu``.

"The twin starts as a copy of the zeroed host buffer" replaces
``torch.zeros(size, dtype=dtype, device=device)``. On CUDA ``.to`` copies and nothing
changes; on a host device (``device="cpu"``, CPU platforms) ``Tensor.to`` returns the
tensor itself, so ``.gpu`` and ``.cpu`` are one storage: a write to ``.np``/``.cpu`` rows
shows in ``.gpu`` before any ``copy_to_gpu``, rows from ``n`` on are no longer "left
alone", and ``copy_to_cpu``/``copy_to_gpu`` copy a tensor onto itself.
"""

from __future__ import annotations

from h2d_contracts.h2d_impl import CpuGpuBuffer

from ._common import make_target


class Buffer(CpuGpuBuffer):
    def __init__(self, *size, dtype, device, pin_memory=None, with_numpy=True):
        super().__init__(*size, dtype=dtype, device=device, pin_memory=pin_memory, with_numpy=with_numpy)
        # The reference's ``self.gpu = torch.zeros(size, dtype=dtype, device=device)``, written as:
        self.gpu = self.cpu.to(self.gpu.device)  # BUG: a no-op on the host: .gpu is .cpu


def target():
    return make_target("b14-buffer-twin-aliases-host", buffer_cls=Buffer)
