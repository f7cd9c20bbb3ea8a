"""b18 (GPU-only): ``UvaBuffer`` pins ``.cpu`` with ``Tensor.pin_memory()`` *after* taking ``.np``: ``pin_memory()`` returns a pinned copy, so ``.np`` views the old pageable tensor.

Where: ``h2d_impl/buffer_utils.py::UvaBuffer.__init__`` (built only where UVA is available:
on a CPU-only host it raises ``RuntimeError`` before allocating, as the reference does).

Change (one step moved)::

    self.cpu = torch.zeros(shape, dtype=dtype, device="cpu", pin_memory=True)   # reference
    self.np = self.cpu.numpy()

    self.cpu = torch.zeros(shape, dtype=dtype, device="cpu")                    # bug
    self.np = self.cpu.numpy()
    self.cpu = self.cpu.pin_memory()   # not in place: a new pinned tensor

``.cpu`` and the UVA view share the pinned copy; ``.np`` is a view of the discarded pageable
zeros. Every write through ``.np`` is lost to ``.cpu`` and to kernels: a
``UvaBufferPool`` step given as a list or an ndarray (written through ``buf.np``) is read as
zeros (or as an older tensor step's rows), and ``UvaBackedTensor`` (its pool fed
``self.np``) keeps ``.gpu`` at zeros; tensor steps (written through ``buf.cpu``) still land.

Promise broken: h2d_impl/buffer_utils.py ``UvaBuffer`` docstring, Attributes: "cpu: pinned
host tensor of ``size``, zeros. np: its numpy view (same memory)", and "A kernel reading
``uva(n)`` reads the host's bytes when it runs"; docs/contracts.md, uva: "a reader queued
behind busy work, with the host writing `.np` after the call, reads the new bytes"; pool:
"every reader reads its own step's rows, shape and values".

On a CPU-only host every public call behaves as the control's (``UvaBuffer`` raises
``RuntimeError`` before this code; pools use ``NonUvaBuffer``).

GPU input: ``b = UvaBuffer(4, torch.int32); b.np[:] = [1, 2, 3, 4]; b.uva().tolist()``.
Reference: ``[1, 2, 3, 4]``. Bug: ``[0, 0, 0, 0]`` (and ``b.cpu`` zeros). Likewise
``UvaBufferPool(4, torch.int32).copy_to_uva([5, 6]).tolist()``: ``[5, 6]`` against ``[0, 0]``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def __init__(self, size: int | Sequence[int], dtype: torch.dtype) -> None:
    shape, dtype = _shape(size), _dtype(dtype)
    if not uva_available():
        raise RuntimeError("UVA is not available")
    self.cpu = torch.zeros(shape, dtype=dtype, device="cpu")
    self.np = self.cpu.numpy()
    self.cpu = self.cpu.pin_memory()  # BUG (r48 b18): pinned as a separate step, after .np was taken
    self._uva = uva_view(self.cpu)


def target() -> Target:
    f = fork("b18")
    return make_target(
        "b18_uva_np_before_pinning",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b18", methods={"UvaBuffer": {"__init__": __init__}}),
    )
