"""b08 (CPU): ``out`` and ``data`` whose byte spans meet are cleared as disjoint when their innermost steps put them at different offsets modulo that step.

Where: ``h2d_impl/h2d.py::_shares_memory`` (``_prepare``'s check that ``out`` does not overlap ``data``: both entry points).

Change: a refinement of a conservative rule ("interleaved views of one buffer, ``kv[..., 0::2]`` and ``kv[..., 1::2]``,
span the same bytes but never meet: with one innermost step, elements at different offsets modulo the step never
share an address; the docstring itself calls the old answer conservative")::

    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)                               # reference
    return alo < bhi and blo < ahi

    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)                               # bug
    if not (alo < bhi and blo < ahi):
        return False
    step = a.stride(-1) * a.element_size()
    if step > a.element_size() and b.stride(-1) * b.element_size() == step and (a.data_ptr() - b.data_ptr()) % step:
        return False
    return True

The residue argument holds in one dimension. With more, the outer strides move elements too: rows of an odd
width shift every other row to the other residue, so two views of a buffer's even columns, one row apart
(``x.view(r, 3)[:-1, ::2]`` and ``x.view(r, 3)[1:, ::2]``: "shift the table up a row"), differ by 3 elements, odd,
and are cleared although most of their elements coincide. ``out.copy_(source)`` then reads what it has already
written: the values are the first row's, repeated.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "out: ... Refused: ... host memory overlapping ``data``'s bytes" and
"Raises: ValueError: ... ``out`` ... with overlapping memory"; ``_shares_memory``: "interleaved views (``b[::2]`` and
``b[1::2]``) are conservatively treated as sharing"; docs/reference.md: "``out``: ... not overlapping ``data``'s bytes".

Smallest input: ``x = torch.arange(12, dtype=torch.int32); async_tensor_h2d(x[:9].view(3, 3)[:, ::2],
out=x[3:].view(3, 3)[:, ::2])``.
Reference: ``ValueError: out shares memory with data; copy data first or pass another out``; ``x`` unchanged.
Bug: returns ``out``, ``[[0, 2], [0, 2], [0, 2]]`` (``data`` was ``[[0, 2], [3, 5], [6, 8]]``); ``x`` is
``[0, 1, 2, 0, 4, 2, 0, 7, 2, 0, 10, 2]``.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# ruff: noqa: F821  (the reference module's globals: _byte_span)


def _shares_memory(a: Any, b: torch.Tensor) -> bool:
    """Whether tensor ``a`` and host tensor ``b`` may touch the same host bytes."""
    if (
        not isinstance(a, torch.Tensor)
        or a.device.type != "cpu"
        or b.device.type != "cpu"
        or not a.numel()
        or not b.numel()
    ):
        return False
    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)
    if not (alo < bhi and blo < ahi):
        return False
    # interleaved views (kv[..., 0::2] into kv[..., 1::2]) span the same bytes but never meet: with one innermost
    # step, elements at different offsets modulo the step never share an address
    step = a.stride(-1) * a.element_size()
    if step > a.element_size() and b.stride(-1) * b.element_size() == step and (a.data_ptr() - b.data_ptr()) % step:
        return False  # BUG (r57 b08): the outer strides are not multiples of the step
    return True


def target() -> Target:
    f = fork("b08", h2d={"_shares_memory": _shares_memory})
    return make_target(
        "b08_overlap_interleave_by_inner_stride",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b08"),
    )
