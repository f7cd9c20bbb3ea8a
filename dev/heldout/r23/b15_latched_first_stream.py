"""b15: every copy is issued on the stream that was current at the first call, whatever stream is current later.

Engine pattern: "copies issued from the scheduler thread must land on the engine's
stream", so the implementation remembers "the engine stream" per device: the stream
current at the first call (made during warm-up / profiling on the default stream) and
issues every later copy under ``with torch.cuda.stream(engine_stream)``. Fault: the stream
is latched at first use instead of being the caller's current stream. Once the engine
runs its steps on another stream (a side stream for the forward pass, CUDA-graph replay,
or another thread's stream), copies are no longer ordered with that stream: behind work
on the latched stream the caller's next kernels read ``out`` / the result before the copy
lands; ahead of work on the caller's stream the copy overwrites buffers still being read.
Invisible on the host: ``device='cpu'`` takes the reference's host path.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import torch

from h2d_contracts.h2d_impl import h2d as ref

from ._common import make_h2d, make_target

if TYPE_CHECKING:
    from h2d_contracts.contracts import Target

_ENGINE_STREAM: dict[torch.device, Any] = {}
_LOCK = threading.Lock()


def _engine_stream(device: torch.device) -> Any:
    stream = _ENGINE_STREAM.get(device)
    if stream is None:
        with _LOCK:
            # FAULT: latched at the first call; the reference uses the current stream of every call
            stream = _ENGINE_STREAM.setdefault(device, torch.cuda.current_stream(device))
    return stream


def _to_device(data: Any, source: torch.Tensor, dtype: torch.dtype, target: torch.device, out: torch.Tensor | None, *, pin: bool) -> torch.Tensor:
    with torch.cuda.stream(_engine_stream(target)):
        return ref._to_device(data, source, dtype, target, out, pin=pin)


async_tensor_h2d = make_h2d(_to_device)


def target() -> Target:
    return make_target("r23-b15-latched-first-stream", fn=async_tensor_h2d,
                       notes="copies issued on the stream current at the first call")
