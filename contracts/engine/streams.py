"""Streams as the engine contracts use them: the current stream and side streams of a device, spin work queued on
one, events recorded and waited for; on the host every call is a no-op (streams simulated by nothing)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch

from h2d_contracts.harness.calling import synchronize

from ..gpu.timing import busy


class StreamSet:
    """``n`` streams of ``device``: the current one first, then side streams; on the host, ``n`` stand-ins.

    ``use(i)`` makes stream ``i`` current; ``busy(i, ms)`` queues spin work on it and returns
    the event after it (None on the host); ``record(i)`` an event on it; ``wait(i, event)``
    makes stream ``i`` wait for ``event``. On the host every call is a no-op.
    """

    def __init__(self, device: torch.device, n: int) -> None:
        self.device = device
        self.cuda = device.type == "cuda"
        if self.cuda:
            current = torch.cuda.current_stream(device)
            self.streams: list[Any] = [current] + [torch.cuda.Stream(device) for _ in range(n - 1)]
        else:
            self.streams = [None] * n

    @contextlib.contextmanager
    def use(self, i: int) -> Iterator[None]:
        if not self.cuda:
            yield
            return
        with torch.cuda.stream(self.streams[i]):
            yield

    def busy(self, i: int, ms: float) -> Any:
        if not self.cuda:
            return None
        with self.use(i):
            return busy(ms, self.device)

    def record(self, i: int) -> Any:
        if not self.cuda:
            return None
        event = torch.cuda.Event()
        event.record(self.streams[i])
        return event

    def wait(self, i: int, event: Any) -> None:
        if self.cuda and event is not None:
            self.streams[i].wait_event(event)

    def synchronize(self) -> None:
        synchronize(self.device)
