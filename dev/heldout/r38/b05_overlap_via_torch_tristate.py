"""b05 (CPU-visible, h2d.py ``_may_overlap``): the self-overlap test of ``out`` delegated to torch's tri-state check.

What changed: the body of ``_may_overlap(t)`` became
``return torch._debug_has_internal_overlap(t) != 0``.

Why an engineer would write it: torch already has the check, in C++ ("why loop over
strides in Python on every call with ``out``?"). But it answers 0 (no overlap), 1 (yes) or
2 (*too hard to tell*) and says 2 for every strided layout that is not dense and has no
zero stride: an every-other view, a column of a matrix, a slice of a permuted tensor.
``!= 0`` treats "too hard" as "overlaps".

Promise broken: ``out`` "strided" / "It is written in place (non-contiguous strides
included)" (docstring; docs/reference.md "`out`: exactly the data's shape, never broadcast;
strided; ... no elements sharing an address"); contracts.md out: "contiguous, strided,
offset and transposed out". Valid outs are refused with ``ValueError``.

Smallest input: ``async_tensor_h2d([1, 2], out=torch.zeros(4, dtype=torch.int64)[::2])``.
Reference: ``tensor([1, 2])`` written into the view (returned). Bug: ``ValueError: out has
internally overlapping memory (several elements share an address)``.
"""

from __future__ import annotations

import torch
from h2d_contracts.contracts import Target

from ._common import Fork, buffer_utils_ns, fork, make_target


def _may_overlap(t: torch.Tensor) -> bool:
    """True unless the strides provably give every element its own address."""
    # BUG: torch's check answers 2 ("too hard") for every non-dense strided view; `!= 0` refuses them all
    return torch._debug_has_internal_overlap(t) != 0


def _fork() -> Fork:
    return fork("b05", h2d={"_may_overlap": _may_overlap})


def target() -> Target:
    f = _fork()
    return make_target(
        "b05_overlap_via_torch_tristate",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
