"""b20 (CPU-visible): ``CpuGpuBuffer.np`` is handed out read-only.

Where: ``h2d_impl/buffer.py``, ``CpuGpuBuffer.__init__`` (the line that makes ``._np``).

Change: ``self._np = self.cpu.numpy() if with_numpy else None`` -> the same view with
``flags.writeable = False`` set on it.

Why plausible: an engineer reading the documented hazard ("``.cpu``/``.np`` rows ``[0, n)``
must not be rewritten until the copy has completed") protects the pinned rows from stray
numpy writes: "``.np`` is for reading the rows; writers go through ``.cpu`` after
synchronising". The view still aliases ``.cpu`` (reads are right), but the documented
way engines fill a buffer, through ``.np``, now raises.

Promise broken: docs/reference.md "Which pattern when: a ``CpuGpuBuffer`` filled through
``.np`` or ``.cpu``, then ``copy_to_gpu(n)``"; README buffer: "``.np`` aliases ``.cpu``"
(state machine "writing rows of ``.cpu`` through ``.np``"); step-loop: "the host refills two
persistent ``CpuGpuBuffer``s through ``.np``".

Smallest input: ``buf = CpuGpuBuffer(2, dtype=torch.int32, device='cpu'); buf.np[0] = 7``.
Reference: ``buf.cpu == tensor([7, 0])``.
Bug: ``ValueError: assignment destination is read-only``.
"""

from __future__ import annotations

from typing import Any

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer

from ._common import buffer_utils_ns, make_target


class _Buffer(CpuGpuBuffer):
    __doc__ = CpuGpuBuffer.__doc__

    def __init__(self, *size: Any, **kwargs: Any) -> None:
        super().__init__(*size, **kwargs)
        if self._np is not None:
            self._np.flags.writeable = False  # BUG: the numpy view made read-only


def target() -> Target:
    return make_target("b20_np_view_read_only", buffer_cls=_Buffer, buffer_utils=buffer_utils_ns())
