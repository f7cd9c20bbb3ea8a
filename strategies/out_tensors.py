"""``out`` tensors for the calls: every layout (contiguous, every other element of a larger buffer, a non-zero storage
offset, transposed), poisoned with a sentinel so an unwritten element shows."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

from . import _validate as _v
from ._dtypes import FLOAT8_DTYPES

OUT_KINDS = ("contiguous", "noncontiguous", "offset", "transposed")
#: Sentinel written into every fresh ``out`` buffer, so an unwritten element shows.
POISON = 77


def _poisoned(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    t = torch.empty(shape, dtype=torch.uint8 if dtype in FLOAT8_DTYPES else dtype, device=device)
    t.fill_(True if dtype is torch.bool else POISON)
    return t.view(dtype) if dtype in FLOAT8_DTYPES else t


@_v.eager(
    shape=_v.shape(optional=False, strategy=False),
    dtype=_v.dtype(optional=False),
    device=_v.device(),
    kind=_v.one_of(OUT_KINDS),
)
@st.composite
def out_buffers(
    draw: st.DrawFn,
    shape: tuple[int, ...],
    dtype: torch.dtype,
    device: torch.device,
    *,
    kind: str | None = None,
) -> torch.Tensor:
    """``out`` tensors of exactly ``shape`` and ``dtype`` on ``device``, poisoned with 77.

    - kind: "contiguous", "noncontiguous" (every other element of a larger buffer),
      "offset" (non-zero storage offset), "transposed"; None draws one. The storage
      around a view is poisoned too, so a contract can check that only ``out``'s own
      elements were written.
    """
    kind = draw(st.sampled_from(OUT_KINDS), label="out kind") if kind is None else kind
    return out_in_layout(shape, dtype, device, kind)


def out_in_layout(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device, kind: str) -> torch.Tensor:
    """One ``out`` tensor of :func:`out_buffers`' ``kind`` (one of ``OUT_KINDS``), poisoned with 77: for deterministic tables.

    Kinds that do not apply to ``shape`` (transposed 1-D) fall back to contiguous.
    Raises ValueError for an unknown ``kind``.
    """
    if kind not in OUT_KINDS:
        raise ValueError(f"kind must be one of {OUT_KINDS}, got {kind!r}")
    shape = tuple(shape)
    if kind == "noncontiguous" and len(shape) >= 1:
        return _poisoned(shape[:-1] + (2 * shape[-1] + 1,), dtype, device)[..., 1::2]
    if kind == "offset":
        n = int(np.prod(shape, dtype=np.int64))
        return _poisoned((n + 2,), dtype, device)[1:-1].view(shape)
    if kind == "transposed" and len(shape) >= 2:
        perm = list(range(len(shape)))[::-1]
        return _poisoned(tuple(shape[p] for p in perm), dtype, device).permute(perm)
    return _poisoned(shape, dtype, device)
