"""b02: side copy stream whose completion event is recorded on the wrong stream.

Engine pattern: H2D copies on a dedicated ``copy_stream`` (it waits for the current
stream first), then "make the consumer wait": an event recorded after the copy and
``current.wait_event(event)``. Fault: ``event.record()`` is called after the
``with torch.cuda.stream(copy_stream)`` block has ended, so it records on the *current*
stream; the wait is a no-op and kernels queued next on the current stream read the
result (or ``out``) before the DMA has landed.
Invisible on the host: ``device='cpu'`` takes the reference's host path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from h2d_contracts.h2d_impl import h2d as ref

from ._common import SideStreams, make_h2d, make_target

if TYPE_CHECKING:
    from h2d_contracts.contracts import Target

_STREAMS = SideStreams()


def _to_device(data: Any, source: torch.Tensor, dtype: torch.dtype, target: torch.device, out: torch.Tensor | None, *, pin: bool) -> torch.Tensor:
    cur = torch.cuda.current_stream(target)
    side = _STREAMS.get(target)
    side.wait_stream(cur)
    with torch.cuda.stream(side):
        result = ref._to_device(data, source, dtype, target, out, pin=pin)
    done = torch.cuda.Event()
    done.record()  # FAULT: outside the with-block this is the current stream, not the copy stream
    cur.wait_event(done)
    if out is None:
        result.record_stream(cur)
    return result


async_tensor_h2d = make_h2d(_to_device)


def target() -> Target:
    return make_target("r23-b02-event-on-current-stream", fn=async_tensor_h2d,
                       notes="side copy stream; its completion event is recorded on the current stream")
