"""b15 (GPU-only): a new ``UvaBuffer`` is zeroed through its device view, by a kernel queued on the stream.

Where: ``h2d_impl/buffer_utils.py::UvaBuffer.__init__`` (so every pool slot, and every slot grown).

Change ("no host memset of the pinned block: let the GPU zero it, asynchronously")::

    self.cpu = torch.zeros(shape, dtype=dtype, device="cpu", pin_memory=True)     # reference
    self.np = self.cpu.numpy()
    self._uva = uva_view(self.cpu)

    self.cpu = torch.empty(shape, dtype=dtype, device="cpu", pin_memory=True)     # bug
    self.np = self.cpu.numpy()
    self._uva = uva_view(self.cpu)
    self._uva.zero_()                                                             # a fill kernel on the current stream

The buffer ends up zeros either way once the stream has run. But the zeroing is no longer done
when the constructor returns: it runs whenever the stream reaches it. Host writes made right
after construction (``.np`` filled, a pool slot grown and written by ``copy_to_uva``) are wiped
when the fill kernel runs later, and a reader queued after it reads zeros. ``UvaBuffer`` exists
only where UVA is available (a CUDA device and pinned memory): on a CPU-only host it raises
``RuntimeError`` before allocating, for both, and pools use ``NonUvaBuffer``; behaviour there
is identical.

Promise broken: h2d_impl/buffer_utils.py ``UvaBuffer`` docstring: "cpu: pinned host tensor of
``size``, zeros" and "A kernel reading ``uva(n)`` reads the host's bytes when it runs"
(``UvaBufferPool``: "``copy_to_uva(x)`` writes ``x`` into the next slot ... and returns the slot's
view"); docs/contracts.md, pool: "every reader reads its own step's rows, shape and values".

Smallest input (CUDA): ``p = UvaBufferPool(1, torch.int32, 1); torch.cuda.synchronize(); torch.cuda._sleep(int(1e9));
v = p.copy_to_uva(np.array([1, 2, 3], np.int32)); r = v.clone(); torch.cuda.synchronize(); r``.
Reference: ``[1, 2, 3]``. Bug: ``[0, 0, 0]`` (the grown slot's fill ran after the host wrote it).
(Also ``b = UvaBuffer(4, torch.int32); b.np[:] = [1, 2, 3, 4]`` behind ``_sleep``, then a sync: ``b.np`` is zeros.)
CPU-only host: ``UvaBuffer(4, torch.int32)`` raises ``RuntimeError: UVA is not available`` for both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def __init__(self: Any, size: int | Sequence[int], dtype: torch.dtype) -> None:
    shape, dtype = _shape(size), _dtype(dtype)  # noqa: F821 (buffer_utils' globals)
    if not uva_available():  # noqa: F821
        raise RuntimeError("UVA is not available")
    self.cpu = torch.empty(shape, dtype=dtype, device="cpu", pin_memory=True)
    self.np = self.cpu.numpy()
    self._uva = uva_view(self.cpu)  # noqa: F821
    self._uva.zero_()  # BUG (r52 b15): zeroed by a kernel queued on the stream, after the host may have written


def target() -> Target:
    f = fork("b15")
    return make_target(
        "b15_uva_buffer_zeroed_on_device",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b15", methods={"UvaBuffer": {"__init__": __init__}}),
    )
