"""b29 (GPU only): the device-side gather of a pinned view reuses the *source's* storage offset.

The change: in ``h2d._gather_span``, ``moved.as_strided(source.shape, source.stride(),
moved.storage_offset())`` became ``moved.as_strided(source.shape, source.stride(),
source.storage_offset())``.

Why an engineer writes it: the line mirrors the one above it
(``source.as_strided((count,), (1,), source.storage_offset())``), and every view in the
tests started at offset 0 (``pinned[:, :k]``, ``pinned[::2]``), where the two offsets agree.

What breaks (CUDA only: the gather path is reached only for pinned inputs to a device):
the DMA'd span starts at the view's first element (offset 0 of ``moved``); picking with
the source's offset shifts every element, and the last one runs past the span:
``as_strided`` raises ``RuntimeError`` (out of bounds for the storage) for any pinned
view with gaps and a non-zero offset, e.g. ``p = torch.arange(16,
dtype=torch.int32).reshape(4, 4).pin_memory(); async_tensor_h2d(p[:, 1:3],
device="cuda")``: the reference returns ``[[1, 2], [5, 6], [9, 10], [13, 14]]``. Values
contract (pinned layouts), ``prop_staging_strided_pinned``. Seen on one H200 (torch 2.11, the
change applied to the reference in a scratch process), for ``[:, 1:3]`` of a pinned 8x8
int32 tensor: ``RuntimeError: setStorage: sizes [8, 2], strides [8, 1], storage offset 1,
... out of bounds``; the reference gave ``[[1, 2], [9, 10], ...]``.
"""

from __future__ import annotations

from ._common import fork, fork_target


def _gather_span(source, count, target, out):
    span = source.as_strided((count,), (1,), source.storage_offset())
    moved = span.to(target, non_blocking=True)
    picked = moved.as_strided(source.shape, source.stride(), source.storage_offset())  # BUG: was moved.storage_offset()
    return out.copy_(picked) if out is not None else picked.contiguous()


def target():
    return fork_target("b29-gather-source-offset", fork("b29", h2d={"_gather_span": _gather_span}))
