"""b01 (CPU): adjacent, disjoint slices of one buffer are refused as overlapping (`out=b[4:]` for `data=b[:4]`).

Where: h2d_impl/h2d.py, ``_shares_memory``.
Change: ``return alo < bhi and blo < ahi`` -> ``return alo <= bhi and blo <= ahi``.
Why plausible: ``_byte_span`` reads like it returns the first and last byte of each view, so a
    developer "fixing" the intersection for inclusive bounds writes ``<=``; the spans are
    half-open (``hi`` is one past the last byte), so two views that merely touch now intersect.
Promise broken: h2d docstring of ``_shares_memory``: "disjoint slices of one buffer (``b[:4]``
    into ``b[4:]``) are independent"; docs/reference.md: "not overlapping ``data``'s bytes
    (disjoint slices of one buffer are fine; ``out`` that *is* ``data`` is allowed)".
Smallest input:
    b = torch.arange(8.0); async_tensor_h2d(b[:4], out=b[4:])
Reference: returns ``out`` (``b`` becomes ``[0, 1, 2, 3, 0, 1, 2, 3]``). Bug: ``ValueError: out shares
    memory with data`` for a valid call.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full


def _shares_memory(a: Any, b: torch.Tensor) -> bool:
    if (
        not isinstance(a, torch.Tensor)
        or a.device.type != "cpu"
        or b.device.type != "cpu"
        or not a.numel()
        or not b.numel()
    ):
        return False
    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)  # noqa: F821 (the fork's _byte_span)
    return alo <= bhi and blo <= ahi  # BUG: closed intervals; the spans are half-open


def target() -> Target:
    return fork_target_full("b01_adjacent_slices_overlap", fork("b01", h2d={"_shares_memory": _shares_memory}))
