"""``NonUvaBuffer``'s host tensor is pinned "so that ``uva(n)`` is asynchronous".

What changed: ``NonUvaBuffer.__init__`` allocated ``.cpu`` in pageable memory. The change
pins it where pinning is available (``pin_memory=pin_memory_available()``): "a
``non_blocking`` copy from pageable memory is synchronous; pin it and the refresh of the
device twin overlaps the step".

Why an engineer writes it: it is the standard advice for host-to-device copies, and
``uva(n)`` already passes ``non_blocking=True``.

Promise broken: the class docstring and docs/reference.md: ``uva(n)`` "copies the first
``n`` rows of ``.cpu`` into the twin and returns that slice: the values are the host's at
the call (a copy from pageable memory; on a GPU it waits for the stream), not at kernel
time". From pinned memory the copy is a DMA queued behind the stream's work: the host's
refill of ``.np`` right after ``uva(n)`` (the next step's rows) is what the queued copy reads.
GPU only (no pinned memory without CUDA: the buffer stays pageable).

Smallest input (CUDA): ``b = NonUvaBuffer(1 << 20, torch.int32, "cuda"); b.np[:] = 1``;
queue ``torch.cuda._sleep``; ``v = b.uva(); b.np[:] = 2; torch.cuda.synchronize()``:
reference ``v`` all 1; bug ``v`` all 2.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import pin_memory_available
from h2d_contracts.h2d_impl.buffer_utils import NonUvaBuffer, _dtype, _shape

from ._common import buffer_utils_ns, make_target


class PinnedNonUvaBuffer(NonUvaBuffer):
    def __init__(
        self, size: int | Sequence[int], dtype: torch.dtype, device: str | torch.device | None = None
    ) -> None:
        shape, dtype = _shape(size), _dtype(dtype)
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        # BUG: pinned where possible, so the non_blocking refresh is a queued DMA (was: pageable)
        self.cpu = torch.zeros(shape, dtype=dtype, device="cpu", pin_memory=pin_memory_available())
        self.np = self.cpu.numpy()
        self._uva = torch.zeros(shape, dtype=dtype, device=device)


def target() -> Target:
    return make_target(
        "b30_nonuva_fallback_pinned", buffer_utils=buffer_utils_ns(NonUvaBuffer=PinnedNonUvaBuffer)
    )
