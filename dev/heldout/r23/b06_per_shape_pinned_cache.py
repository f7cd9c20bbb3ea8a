"""b06: a pinned staging cache keyed by exact shape: one more pinned buffer for every distinct shape, never released.

Engine pattern: variable batch sizes every step (num_tokens, num_reqs + 1, padded
graph sizes...), so the shapes passed to ``async_tensor_h2d`` keep changing over a
serving run. Fault: staged payloads use a per-``(device, shape, dtype)`` list of pinned
buffers, each reused only once its event says its copy ran (so the values are right),
but the cache is keyed by the exact shape instead of a size class, and nothing ever
evicts it (``empty_staging_cache`` does not know it): pinned host memory grows by one
buffer per distinct shape seen and stays referenced at quiescence.
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

_CACHE: dict[tuple[torch.device, tuple[int, ...], torch.dtype], list[list[Any]]] = {}
_LOCK = threading.Lock()


def _to_device(data: Any, source: torch.Tensor, dtype: torch.dtype, target: torch.device, out: torch.Tensor | None, *, pin: bool) -> torch.Tensor:
    if not pin or reads_in_place(data, source, dtype):
        return ref._to_device(data, source, dtype, target, out, pin=pin)
    key = (target, tuple(source.shape), dtype)  # FAULT: exact shape, unbounded, never trimmed
    with _LOCK:
        entries = _CACHE.setdefault(key, [])
        for entry in entries:
            if entry[1].query():  # its last copy has run: reusable
                break
        else:
            entry = [torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=True), torch.cuda.Event()]
            entries.append(entry)
        staging, done = entry
        ref._host_copy(staging, source)
        result = ref._dma(staging, target, out)
        done.record(torch.cuda.current_stream(target))
        return result


async_tensor_h2d = make_h2d(_to_device)


def cached_bytes() -> int:
    """Pinned bytes the per-shape cache holds (diagnostics for gpu_repro.py)."""
    return sum(e[0].numel() * e[0].element_size() for entries in list(_CACHE.values()) for e in entries)


def target() -> Target:
    return make_target("r23-b06-per-shape-pinned-cache", fn=async_tensor_h2d,
                       notes="pinned staging cached per exact shape, never evicted")
