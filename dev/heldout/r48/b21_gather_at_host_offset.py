"""b21 (GPU-only): the device gather of a pinned view with gaps picks its elements at the *host view's* storage offset, not the moved span's.

Where: ``h2d_impl/h2d.py::_gather_span`` (zero-copy path for a pinned, non-dense view of the
target dtype whose byte span is at most 4x its payload; CUDA targets only).

Change (one line)::

    picked = moved.as_strided(source.shape, source.stride(), moved.storage_offset())    # reference: the span starts at 0
    picked = moved.as_strided(source.shape, source.stride(), source.storage_offset())   # bug

``moved`` is the DMA'd span, which already starts at the view's first element; re-applying
the view's own offset in the host storage reads past the span's end. Any such view with a
nonzero offset (a column slice other than column 0, ``x[1:, ::2]``, a sliced row block)
makes ``as_strided`` raise ``RuntimeError`` (storage out of bounds); views starting at their
storage's first element are copied right.

Promise broken: docs/reference.md, "How it stages": "A pinned view with gaps whose byte span
is at most 4 times its payload (`GATHER_MAX_SPAN`) is DMA'd as that span and gathered on the
device"; h2d_impl/h2d.py ``async_tensor_h2d`` docstring: "a view with gaps (e.g. a column
slice) whose byte span is at most 4x its payload is DMA'd as that span and gathered on the
device" and data: "a CPU ``torch.Tensor`` in any strided layout, pinned or pageable";
README, values: "every dtype, input kind and layout".

On a CPU-only host every public call behaves as the control's (there is no pinned memory and
the zero-copy path is for CUDA targets only).

GPU input: ``x = torch.arange(8, dtype=torch.int32).view(4, 2).pin_memory()[:, 1];
async_tensor_h2d(x, device='cuda')``.
Reference: ``tensor([1, 3, 5, 7], device='cuda:0', dtype=torch.int32)``. Bug: ``RuntimeError:
setStorage: sizes [4], strides [2], storage offset 1, ... out of bounds for storage of size 28``.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def _gather_span(source: torch.Tensor, count: int, target: torch.device, out: torch.Tensor | None) -> torch.Tensor:
    """DMA the contiguous storage span (``count`` elements) of a pinned view with gaps, then pick its elements on the device.

    No host pass and no pinned allocation: a 64 MiB pinned column slice (stride 2) cost a
    21.5 ms host gather behind a busy stream on the H200
    (the unmutated control of a GPU mutation run failed on it), over the
    non-blocking contract's 20 ms. The span is read by the DMA later, as for any pinned
    input: the documented hazard applies.
    """
    span = source.as_strided((count,), (1,), source.storage_offset())  # contiguous, pinned: one DMA (strides >= 0)
    moved = span.to(target, non_blocking=True)
    picked = moved.as_strided(source.shape, source.stride(), source.storage_offset())  # BUG (r48 b21): the host view's offset
    return out.copy_(picked) if out is not None else picked.contiguous()


def target() -> Target:
    f = fork("b21", h2d={"_gather_span": _gather_span})
    return make_target(
        "b21_gather_at_host_offset",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b21"),
    )
