"""GPU only: the byte span DMA'd for a pinned view with gaps is one element short.

``_span_elements`` is rewritten from the strides, "no need for addresses":
``sum(stride * (size - 1))``, the distance from the first element to the last, where the
span *includes* the last (``+ 1``). ``_gather_span`` then DMAs one element too few and
``moved.as_strided(source.shape, source.stride(), ...)`` reaches past the device copy's
storage: ``RuntimeError: setStorage: ... out of bounds``. Every pinned view with gaps whose
span is at most 4x its payload fails (a column slice ``pinned.view(4, 2)[:, 0]``, a pinned
``t[::2]``); on a CPU-only machine nothing is pinned and this path is never taken.
"""

from __future__ import annotations

import torch

from h2d_contracts.h2d_impl import h2d

from ._common import make_target
from ._patch import entry_points, rebind


def _span_elements(t: torch.Tensor) -> int:
    """Elements from non-empty ``t``'s first to its last, gaps included (strides are >= 0 for tensors)."""
    return sum(stride * (size - 1) for stride, size in zip(t.stride(), t.shape))  # BUG: + 1 (the last element)


def target():
    fn, _ = entry_points(to_device=rebind(h2d._to_device, _span_elements=_span_elements))
    return make_target("b22-gather-span-short", fn=fn, notes="GPU only")
