"""b14 (CPU): ``CpuGpuBuffer.capacity`` counts elements, not rows.

The change: the ``capacity`` property returns ``self.cpu.numel()`` instead of
``self.cpu.shape[0]``.

Why an engineer writes it: for the 1-D token buffers the two are equal, and the
scheduler thinks of capacity as "token slots"; ``numel()`` reads as the buffer's size.

What breaks: ``n`` outside ``[0, capacity]`` (rows) raises ``IndexError`` and nothing is
copied (docs/reference.md, buffer contract). On a 2-D buffer, ``CpuGpuBuffer(2, 3,
...).copy_to_gpu(3)`` passes the check (capacity 6) and the slice ``[:3]`` clamps to the 2
rows: it copies and returns 2 rows instead of raising; ``.capacity`` itself reads 6.
"""

from __future__ import annotations

from h2d_contracts.h2d_impl import buffer as _buffer

from ._common import make_target, rebind


def capacity(self):
    """Number of rows (``size[0]``): the largest valid ``n``."""
    return self.cpu.numel()  # BUG: elements, not rows (size[0])


class CpuGpuBuffer(_buffer.CpuGpuBuffer):
    capacity = property(rebind(capacity, _buffer))


def target():
    return make_target("b14-buffer-capacity-numel", buffer_cls=CpuGpuBuffer)
