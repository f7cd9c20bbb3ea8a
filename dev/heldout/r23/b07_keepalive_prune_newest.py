"""b07: per-call pinned staging kept alive in a list that is pruned only when the newest copy has finished.

Engine pattern: a continuously busy stream (the forward pass of step k is always queued
when the inputs of step k+1 are copied, async scheduling). The implementation stages
each call in a fresh ``torch.empty(..., pin_memory=True)`` (vLLM's way) and keeps it in a
keep-alive list so that it cannot be freed under its DMA. Fault: the list is pruned "all
at once once the newest entry's event has completed" (right on one stream: events
complete in order), checked when the next call starts; behind a busy stream the newest
copy has never finished by then, so nothing is ever dropped: every call's pinned buffer
stays referenced, pinned memory grows without bound and stays held at quiescence until
some later call finds the stream idle.
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

_KEEPALIVE: list[tuple[torch.Tensor, Any]] = []
_LOCK = threading.Lock()


def _to_device(data: Any, source: torch.Tensor, dtype: torch.dtype, target: torch.device, out: torch.Tensor | None, *, pin: bool) -> torch.Tensor:
    if not pin or reads_in_place(data, source, dtype):
        return ref._to_device(data, source, dtype, target, out, pin=pin)
    with _LOCK:
        # FAULT: pruned only when the newest entry is done; behind a busy stream it never is
        if _KEEPALIVE and _KEEPALIVE[-1][1].query():
            _KEEPALIVE.clear()
        staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=True)
        ref._host_copy(staging, source)
        result = ref._dma(staging, target, out)
        done = torch.cuda.Event()
        done.record(torch.cuda.current_stream(target))
        _KEEPALIVE.append((staging, done))
        return result


async_tensor_h2d = make_h2d(_to_device)


def kept_bytes() -> int:
    """Pinned bytes the keep-alive list references (diagnostics for gpu_repro.py)."""
    return sum(s.numel() * s.element_size() for s, _ in list(_KEEPALIVE))


def target() -> Target:
    return make_target("r23-b07-keepalive-prune-newest", fn=async_tensor_h2d,
                       notes="per-call pinned staging in a keep-alive list pruned only when the newest copy is done")
