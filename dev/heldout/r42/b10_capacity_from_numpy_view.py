"""b10 (CPU): ``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` of a buffer made with ``with_numpy=False`` raise ``AttributeError``.

Where: h2d_impl/buffer.py, ``CpuGpuBuffer.capacity``.
Change: ``return self.cpu.shape[0]`` -> ``return len(self.np)``.
Why plausible: ``capacity`` is read on every ``copy_to_gpu(n)``; ``len`` of the numpy view is a
    C call, cheaper than ``Tensor.shape[0]`` (a ``torch.Size`` built per access), and it is the
    same number "since ``.np`` aliases ``.cpu``". It is not there when the buffer has no ``.np``:
    bfloat16 and float8 buffers (which must be made ``with_numpy=False``) and any buffer made so.
Promise broken: CpuGpuBuffer docstring: ``copy_to_gpu(n)``: "n: number of rows, ``0 <= n <=
    capacity``"; ``capacity``: "Number of rows (``size[0]``)"; contracts.md buffer: "Without ``.np``
    every dtype round-trips bit for bit", ``copy_to_gpu(n)`` / ``copy_to_cpu(n)`` copy exactly
    rows ``[0, n)``.
Smallest input:
    b = CpuGpuBuffer(4, dtype=torch.bfloat16, device="cpu", with_numpy=False); b.copy_to_gpu(2)
Reference: ``b.gpu[:2]`` (2 rows copied). Bug: ``AttributeError: this CpuGpuBuffer was created with
    with_numpy=False and has no .np view``. ``copy_to_gpu()`` (no ``n``) and every buffer with
    ``.np`` are unaffected.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer_mod
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer

from ._common import fork, fork_target_full, rebind


def _capacity(self) -> int:
    return len(self.np)  # BUG: needs .np, absent for with_numpy=False buffers


class Buffer(CpuGpuBuffer):
    __doc__ = CpuGpuBuffer.__doc__
    capacity = property(rebind(_capacity, _buffer_mod), doc=CpuGpuBuffer.capacity.__doc__)


def target() -> Target:
    return fork_target_full("b10_capacity_from_numpy_view", fork("b10"), buffer_cls=Buffer)
