"""``CpuGpuBuffer`` accepts its shape as one tuple/list/``torch.Size`` (``CpuGpuBuffer((4, 3), ...)``).

A torch-style convenience: "``torch.zeros((4, 3))`` works, so should we": a single size
argument that is a sequence is unpacked. The signature is ``CpuGpuBuffer(*size, ...)``
with int sizes, and documented: a size that is not an int raises ``TypeError`` naming
``size``. Here ``CpuGpuBuffer((4,), dtype=torch.int32, device="cpu")`` builds a 4-row
buffer, and ``CpuGpuBuffer(torch.Size([2, 3]), ...)`` a 2x3 one.
"""

from __future__ import annotations

import torch

from h2d_contracts.h2d_impl import CpuGpuBuffer

from ._common import make_target


class Buffer(CpuGpuBuffer):
    def __init__(self, *size, dtype, device, pin_memory=None, with_numpy=True):
        if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
            size = tuple(size[0])  # BUG: the contract refuses a size that is not an int
        super().__init__(*size, dtype=dtype, device=device, pin_memory=pin_memory, with_numpy=with_numpy)


def target():
    return make_target("b20-buffer-size-tuple-accepted", buffer_cls=Buffer)
