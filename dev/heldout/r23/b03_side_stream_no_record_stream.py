"""b03: the textbook side-stream copy without ``record_stream``: a fresh result's memory is reused under its reader.

Engine pattern (the textbook side-stream prefetch): copies on a dedicated
``copy_stream``; it waits for the current stream only when writing into ``out`` (a fresh
result has no earlier readers), and the current stream waits for an event recorded on
the copy stream after the copy. Fault: the fresh result, allocated while the copy stream
is current, gets no ``result.record_stream(current)``. When the caller drops it while a
kernel reading it is still queued on the busy current stream, the caching allocator
gives the block to the next call's result on the copy stream at once, and that call's
DMA overwrites it before the queued reader runs.
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
    if out is not None:
        side.wait_stream(cur)  # the copy writes out: what is queued on out runs first
    with torch.cuda.stream(side):
        result = ref._to_device(data, source, dtype, target, out, pin=pin)
        done = torch.cuda.Event()
        done.record(side)
    cur.wait_event(done)
    # FAULT (missing): if out is None: result.record_stream(cur)
    return result


async_tensor_h2d = make_h2d(_to_device)


def target() -> Target:
    return make_target("r23-b03-side-stream-no-record-stream", fn=async_tensor_h2d,
                       notes="side copy stream; a fresh result allocated on it gets no record_stream(current)")
