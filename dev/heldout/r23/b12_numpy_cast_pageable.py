"""b12: converting payloads are cast by numpy into a fresh pageable array and DMA'd from there.

Engine pattern: token ids built as Python ints / int64 arrays and sent as
``dtype=torch.int32`` (or int -> float32, float -> int...), payloads of several MB
(prefill batches, block tables, sampling metadata), while the previous step is still
queued. The implementation adds a "fast cast" (numpy's one-threaded cast, which the
reference uses too for these pairs) for converting calls. Fault: it casts into a new numpy
array instead of into pinned staging, so the ``non_blocking=True`` copy reads pageable
memory: the driver blocks the host behind the busy stream (tens of ms from a few MB on),
and a profiler shows "Memcpy HtoD (Pageable -> Device)". Values stay right.
Invisible on the host: host targets take the host path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from h2d_contracts.h2d_impl import h2d as ref

from ._common import make_h2d, make_target

if TYPE_CHECKING:
    from h2d_contracts.contracts import Target

_NP_DTYPES: dict[torch.dtype, Any] = {}


def _np_dtype(dtype: torch.dtype) -> Any:
    np_dtype = _NP_DTYPES.get(dtype)
    if np_dtype is None:
        np_dtype = _NP_DTYPES[dtype] = torch.empty(0, dtype=dtype).numpy().dtype
    return np_dtype


def _to_device(data: Any, source: torch.Tensor, dtype: torch.dtype, target: torch.device, out: torch.Tensor | None, *, pin: bool) -> torch.Tensor:
    if pin and source.dtype != dtype and (source.dtype, dtype) in ref._NUMPY_CASTS and not source.is_neg():
        # FAULT: a fresh pageable host array; the reference casts into pinned staging
        host = torch.from_numpy(source.numpy().astype(_np_dtype(dtype)))
        return out.copy_(host, non_blocking=True) if out is not None else host.to(target, non_blocking=True)
    return ref._to_device(data, source, dtype, target, out, pin=pin)


async_tensor_h2d = make_h2d(_to_device)


def target() -> Target:
    return make_target("r23-b12-numpy-cast-pageable", fn=async_tensor_h2d,
                       notes="dtype-converting calls are cast by numpy into pageable memory and DMA'd from it")
