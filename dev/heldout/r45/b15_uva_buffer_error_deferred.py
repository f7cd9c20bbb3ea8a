"""b15 - ``UvaBuffer`` no longer refuses construction without UVA: it degrades to a pageable host buffer.

Where: ``buffer_utils.UvaBuffer.__init__``.

Change (old -> new)::

    if not uva_available():
        raise RuntimeError("UVA is not available")
    self.cpu = torch.zeros(shape, dtype=dtype, device="cpu", pin_memory=True)
    self.np = self.cpu.numpy()
    self._uva = uva_view(self.cpu)
    ->
    pinned = uva_available()  # BUG: construct anyway; only the device view needs UVA
    self.cpu = torch.zeros(shape, dtype=dtype, device="cpu", pin_memory=pinned)
    self.np = self.cpu.numpy()
    self._uva = uva_view(self.cpu) if pinned else None

Why an engineer writes it: unit tests and CPU-only tooling construct runner objects that own a
``UvaBuffer`` but never launch kernels; a defensive change lets the object exist (its ``.cpu`` /
``.np`` are useful on their own) and leaves the failure to the first ``uva()`` call, which
"only happens on CUDA hosts anyway". ``UvaBufferPool`` is unaffected (it picks
``NonUvaBuffer`` without UVA), so pools, backed tensors and staged writes still pass.

Promise broken: docs/reference.md "Model Runner V2's transfer utilities" ("Without CUDA or pinned
memory ``UvaBuffer`` raises ``RuntimeError`` as vLLM's does") and the class docstring
("Raises: RuntimeError: UVA is unavailable (as vLLM's)"); docs/contracts.md "uva" (on a CPU
host a UvaBuffer's ``uva(n)`` does not return the first ``n`` rows: it is ``None`` for ``n=None``
and a ``TypeError`` about ``NoneType`` otherwise).

Smallest input (CPU)::

    UvaBuffer(4, torch.int32)

Reference: ``RuntimeError: UVA is not available``.
Bug: returns a buffer (``.cpu`` zeros, pageable); ``.uva()`` is ``None`` and ``.uva(2)`` raises
``TypeError: 'NoneType' object is not subscriptable``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from h2d_contracts.contracts import Target
from plumbing import bu_fork, bu_target


def __init__(self, size: int | Sequence[int], dtype: torch.dtype) -> None:
    shape, dtype = _shape(size), _dtype(dtype)  # noqa: F821
    pinned = uva_available()  # BUG: was "if not uva_available(): raise RuntimeError(...)"  # noqa: F821
    self.cpu = torch.zeros(shape, dtype=dtype, device="cpu", pin_memory=pinned)
    self.np = self.cpu.numpy()
    self._uva = uva_view(self.cpu) if pinned else None  # noqa: F821


def target() -> Target:
    return bu_target(
        "b15", "b15_uva_buffer_error_deferred", bu_fork("b15", methods={"UvaBuffer": {"__init__": __init__}})
    )
