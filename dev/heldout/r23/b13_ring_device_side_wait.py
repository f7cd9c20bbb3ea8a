"""b13: double-buffered pinned staging whose slot reuse waits on the device, not on the host.

Engine pattern: several H2D calls per step (or several steps in flight under async
scheduling) while the stream is busy. The implementation stages into a ring of two
pinned slots per size class (power of two, at least 4 KiB) and records an event after
each slot's copy. Fault: before reusing a slot it calls
``torch.cuda.current_stream().wait_event(slot_event)``, which orders later *GPU* work
after the slot's last copy but does not stop the *host* from rewriting the slot now
(that needs ``slot_event.synchronize()`` or a query). The third call behind a busy
stream overwrites slot 0 while the first call's copy is still queued: the first result
gets the third call's data.
Invisible on the host: host targets never stage.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import torch

from h2d_contracts.h2d_impl import h2d as ref

from ._common import make_h2d, make_target, reads_in_place

if TYPE_CHECKING:
    from h2d_contracts.contracts import Target


class _Ring:
    __slots__ = ("slots", "events", "next")

    def __init__(self, nbytes: int) -> None:
        self.slots = [torch.empty(nbytes, dtype=torch.uint8, device="cpu", pin_memory=True) for _ in range(2)]
        self.events: list[Any] = [None, None]
        self.next = 0


_RINGS: dict[tuple[torch.device, int], _Ring] = {}
_LOCK = threading.Lock()


def _to_device(data: Any, source: torch.Tensor, dtype: torch.dtype, target: torch.device, out: torch.Tensor | None, *, pin: bool) -> torch.Tensor:
    if not pin or reads_in_place(data, source, dtype):
        return ref._to_device(data, source, dtype, target, out, pin=pin)
    nbytes = source.numel() * dtype.itemsize
    size_class = max(4096, 1 << max(nbytes - 1, 0).bit_length())
    with _LOCK:
        ring = _RINGS.get((target, size_class))
        if ring is None:
            ring = _RINGS[(target, size_class)] = _Ring(size_class)
        i = ring.next
        ring.next = 1 - i
        cur = torch.cuda.current_stream(target)
        if ring.events[i] is not None:
            cur.wait_event(ring.events[i])  # FAULT: a device-side wait; the host rewrites the slot right below
        staging = ring.slots[i][:nbytes].view(dtype).view(source.shape)
        ref._host_copy(staging, source)
        result = ref._dma(staging, target, out)
        done = torch.cuda.Event()
        done.record(cur)
        ring.events[i] = done
        return result


async_tensor_h2d = make_h2d(_to_device)


def empty_cache() -> int:
    """The reference's ``empty_staging_cache`` plus the rings (bounded; torch's host allocator keeps a slot until its copy ran)."""
    with _LOCK:
        released = sum(s.numel() for r in _RINGS.values() for s in r.slots)
        _RINGS.clear()
    return ref._staging.empty_staging_cache() + released


def target() -> Target:
    return make_target("r23-b13-ring-device-side-wait", fn=async_tensor_h2d, empty_cache=empty_cache,
                       notes="two-slot pinned ring; slot reuse waits with stream.wait_event instead of a host wait")
