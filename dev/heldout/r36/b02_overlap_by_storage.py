"""The data/out overlap check compares storages instead of byte spans.

What changed: ``h2d._shares_memory(a, b)`` compared the byte ranges the two views span, so
disjoint slices of one buffer are independent. The change compares the storages' base
pointers: "two views of one storage may alias; the span arithmetic is fiddly, and the
storage test is one comparison".

Why an engineer writes it: it is the textbook aliasing test (``a.untyped_storage().data_ptr()
== b.untyped_storage().data_ptr()``), conservative, cheaper, and still refuses every
aliasing call the contracts draw.

Promise broken: docs/reference.md, ``out``: "not overlapping data's bytes (disjoint slices
of one buffer are fine)". An engine that keeps one host arena and copies one slice of it
into another (``out=arena[4:]`` from ``arena[:4]``) gets a ValueError on a valid call.

Smallest input: ``b = torch.arange(8); async_tensor_h2d(b[:4], out=b[4:])``: reference
returns ``out`` = ``[0, 1, 2, 3]``; bug raises ``ValueError: out shares memory with data``.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target


def _shares_memory(a: Any, b: torch.Tensor) -> bool:
    if (
        not isinstance(a, torch.Tensor)
        or a.device.type != "cpu"
        or b.device.type != "cpu"
        or not a.numel()
        or not b.numel()
    ):
        return False
    # BUG: one storage = shared memory (was: the byte ranges the two views span must intersect)
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def target() -> Target:
    return fork_target("b02_overlap_by_storage", fork("b02", h2d={"_shares_memory": _shares_memory}))
