"""GPU only. UvaBuffer.__init__ allocates ``.cpu`` with ``torch.empty(..., pin_memory=True)``: not zeroed.

What changed: ``torch.zeros(shape, ..., pin_memory=True)`` became ``torch.empty(...)``.

Why an engineer would write it: zero-filling a large pinned buffer at start-up is a host
memset over every page, and "the runner writes the rows it uploads before every step";
the same optimisation is common for staging buffers.

Promise broken (UvaBuffer's docstring: "cpu: pinned host tensor of size, zeros"; vLLM's
own ``UvaBuffer`` is ``torch.zeros`` too). Torch's caching host allocator hands back a
freed pinned block as it was left, so a new UvaBuffer (its ``.cpu``, ``.np`` and device
view alike) shows the old tenant's bytes: rows a step never wrote (a request's unused
block-table entries) read as stale ids instead of 0.

Needs a CUDA device with pinned memory (UvaBuffer refuses to exist elsewhere).

Smallest input: ``p = torch.full((256,), 7, dtype=torch.int32, pin_memory=True); del p;
b = UvaBuffer(256, torch.int32); b.cpu``: reference all zeros; bug: the 7s (the freed
block reused by the caching host allocator).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind


def _init(self, size, dtype):  # type: ignore[no-untyped-def]
    shape, dtype = _shape(size), _dtype(dtype)  # noqa: F821
    if not uva_available():  # noqa: F821
        raise RuntimeError("UVA is not available")
    self.cpu = torch.empty(shape, dtype=dtype, device="cpu", pin_memory=True)  # BUG: not zero-initialised  # noqa: F821
    self.np = self.cpu.numpy()
    self._uva = uva_view(self.cpu)  # noqa: F821


class UvaBuffer(REF.UvaBuffer):
    __init__ = rebind(_init)


def target() -> Target:
    return make_target("uva_buffer_pinned_empty", UvaBuffer=UvaBuffer)
