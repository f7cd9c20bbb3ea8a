"""b12 (CPU): ``copy_to_gpu`` reads the host rows through the ``.np`` view, which buffers built with ``with_numpy=False`` lack.

Where: buffer.py, ``CpuGpuBuffer.copy_to_gpu``.
Change: the source ``self.cpu`` / ``self.cpu[:n]`` -> ``src = torch.from_numpy(self.np)``, ``src`` / ``src[:n]``.
Why plausible: the runner fills rows through ``.np``; the developer copies "from what the runner wrote",
believing a write through the numpy view might not be seen through ``.cpu`` (it is the same memory).
Every buffer made with the default ``with_numpy=True`` behaves as before.
Promise broken: docs/contracts.md buffer: "Without ``.np`` every dtype round-trips bit for bit";
CpuGpuBuffer docstring: "copy_to_gpu(n): Copy rows [0, n) of .cpu to .gpu" (bfloat16 and float8 buffers
must be built with ``with_numpy=False``, so they cannot be uploaded at all).
Smallest input:
    b = CpuGpuBuffer(4, dtype=torch.bfloat16, device="cpu", with_numpy=False); b.cpu[:2] = 1.5
    b.copy_to_gpu(2)
Reference: tensor([1.5, 1.5], dtype=torch.bfloat16) (``.gpu``'s first two rows). Bug: AttributeError "this
CpuGpuBuffer was created with with_numpy=False and has no .np view".
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._buf import buffer_subclass
from ._common import fork, fork_target_full

TAG = "b12"


def copy_to_gpu(self, n=None):
    n = self._rows(n)
    src = torch.from_numpy(self.np)  # BUG: was self.cpu (the .np view exists only with with_numpy=True)
    if n is None:
        return self.gpu.copy_(src, non_blocking=True)
    return self.gpu[:n].copy_(src[:n], non_blocking=True)


def buffer_cls():
    return buffer_subclass(TAG, copy_to_gpu=copy_to_gpu)


def target() -> Target:
    return fork_target_full("b12_copy_to_gpu_via_np", fork(TAG), buffer_cls=buffer_cls())
