"""b10: ``CpuGpuBuffer.copy_to_cpu`` on a side D2H stream that does not wait for the kernels producing ``.gpu``.

Engine pattern: sampled token ids (or logprobs) are written into ``.gpu`` by the last
kernels of a step and copied back with ``copy_to_cpu(n)``, on a separate "output copy"
stream so the D2H overlaps the next step. The current stream waits for an event recorded
after the D2H, so the documented ``current_stream().synchronize()`` still covers it.
Fault: the D2H stream never waits for the current stream first
(``d2h.wait_stream(current)`` missing), so it reads ``.gpu`` before the queued kernels
have written it: ``.cpu`` gets the previous step's values.
Invisible on the host: a CPU buffer keeps the reference's copies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from h2d_contracts import h2d_impl

from ._common import make_target

if TYPE_CHECKING:
    from h2d_contracts.contracts import Target


class CpuGpuBuffer(h2d_impl.CpuGpuBuffer):
    __doc__ = h2d_impl.CpuGpuBuffer.__doc__

    def __init__(self, *size: int, **kwargs: Any) -> None:
        super().__init__(*size, **kwargs)
        self._d2h: Any = None

    def copy_to_cpu(self, n: int | None = None) -> torch.Tensor:
        if self.gpu.device.type != "cuda":
            return super().copy_to_cpu(n)
        if self._d2h is None:
            self._d2h = torch.cuda.Stream(self.gpu.device)
        cur = torch.cuda.current_stream(self.gpu.device)
        # FAULT (missing): self._d2h.wait_stream(cur)
        with torch.cuda.stream(self._d2h):
            result = super().copy_to_cpu(n)
            done = torch.cuda.Event()
            done.record(self._d2h)
        cur.wait_event(done)
        return result


def target() -> Target:
    return make_target("r23-b10-buffer-d2h-side-stream-no-wait", buffer_cls=CpuGpuBuffer,
                       notes="CpuGpuBuffer.copy_to_cpu on a side stream that does not wait for the current stream")
