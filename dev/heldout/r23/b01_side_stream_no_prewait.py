"""b01: copies issued on a dedicated side copy stream that never waits for the current stream first.

Engine pattern: H2D input copies moved onto a ``copy_stream`` so they overlap the
forward pass; the result is handed back correctly (the current stream waits for an event
recorded on the copy stream after the copy, and fresh results get ``record_stream``).
Fault: the copy stream does not ``wait_stream(current)`` before the copy, so a copy into
``out`` (a persistent device buffer, a CUDA-graph static input) overtakes the work
already queued on the current stream that still reads or writes ``out``, and a pinned
source produced by queued work (a D2H into it) is read before it is written.
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
    # (missing: side.wait_stream(cur), so the copy is ordered after what is queued on cur)
    with torch.cuda.stream(side):
        result = ref._to_device(data, source, dtype, target, out, pin=pin)
        done = torch.cuda.Event()
        done.record(side)
    cur.wait_event(done)
    if out is None:
        result.record_stream(cur)
    return result


async_tensor_h2d = make_h2d(_to_device)


def target() -> Target:
    return make_target("r23-b01-side-stream-no-prewait", fn=async_tensor_h2d,
                       notes="copy on a side stream that does not wait for the current stream before the copy")
