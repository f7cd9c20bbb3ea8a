"""b13 (CPU): the ``data``/``out`` overlap test loses its empty-tensor guard, so empty data into an empty ``out`` is refused.

Where: ``h2d._shares_memory`` (the overlap check between ``data``'s bytes and ``out``'s,
shared by the main function and the CPU-platform variant).

The change: ``or not a.numel() or not b.numel()`` is dropped from the early
``return False`` guard.

Why an engineer writes it: the function compares the byte spans of the two views, and
an empty view "spans nothing", so the guard reads as a redundant special case. It is
not: ``_byte_span`` of an empty tensor is a non-empty interval around its data pointer
(``stride * (0 - 1)`` reaches one element back, plus one item), and torch gives every
empty tensor the data pointer 0, so two unrelated empty tensors always "overlap".

Promise broken: docs/reference.md *out*: "not overlapping ``data``'s bytes (disjoint slices
of one buffer are fine ...)"; ``async_tensor_h2d`` docstring (``out`` of shape exactly
``S`` is written and returned; ``S`` may be empty); README ``values`` (zero-length inputs,
``prop_values_zero_length``) and ``out``.

Smallest input: ``async_tensor_h2d(torch.zeros(0), out=torch.zeros(0))`` (or ``[]`` as data).
Reference: returns ``out`` (an empty float32 tensor). Bug: ``ValueError: out shares memory
with data; copy data first or pass another out``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.contracts import Target

from ._bu import bu_fork
from ._common import Fork, fork, make_target

# flake8: noqa: F821  (the function below resolves the reference's names in the fork)

def _shares_memory(a: Any, b: torch.Tensor) -> bool:
    """Whether tensor ``a`` and host tensor ``b`` may touch the same host bytes (their byte spans intersect)."""
    # BUG: the empty-tensor guard dropped ("an empty tensor's span is empty anyway")
    if not isinstance(a, torch.Tensor) or a.device.type != "cpu" or b.device.type != "cpu":
        return False
    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)
    return alo < bhi and blo < ahi


def _fork() -> Fork:
    return fork("b13", h2d={"_shares_memory": _shares_memory})


def target() -> Target:
    f = _fork()
    return make_target(
        "b13_overlap_empty_guard_dropped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b13"),
    )
