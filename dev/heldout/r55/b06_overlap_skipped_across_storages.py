"""b06 (CPU): the data/``out`` overlap check is skipped when the two tensors have different storage objects.

Where: ``h2d_impl/h2d.py::_shares_memory`` (every call with a host ``out``; both entry points).

Change: a pre-filter before the byte-span arithmetic ("views of different storages never share
bytes: one pointer comparison settles the common case, two distinct buffers")::

    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)                     # reference
    return alo < bhi and blo < ahi

    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():      # bug
        return False
    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)
    return alo < bhi and blo < ahi

True for tensors torch allocated, false for memory two storage objects wrap. ``torch.from_numpy``
makes a storage that starts at the array's own first byte: the source of an ndarray that views
``out``'s buffer from an offset (``buf.np[1:n + 1]`` into ``out=buf.cpu[:n]``, an engine shifting its
tokens down one slot, or ``buf.np[1:n + 1]`` into ``out=buf.cpu[2:n + 2]``, shifting them up) has a
storage of its own, whose pointer is not ``out``'s. The refusal is skipped and ``out`` is written
while it is read. Shifting down happens to come out right; shifting up, ``data`` starting before
``out``, torch's element-by-element copy smears the first value over the rest. (An array view
starting at the buffer's first byte shares ``out``'s storage pointer and is still refused.)

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "out: ... Refused: ... host memory overlapping
``data``'s bytes"; docs/reference.md, ``out``: "not overlapping ``data``'s bytes"; docs/contracts.md,
bad-input: kind ``out-aliases-data-array`` must raise ``ValueError``.

Smallest input: ``base = torch.arange(8, dtype=torch.int32); async_tensor_h2d(base.numpy()[1:5], out=base[2:6]); base``.
Reference: ``ValueError: out shares memory with data; copy data first or pass another out``; ``base`` untouched.
Bug: returns ``out`` = ``[1, 1, 1, 1]``; ``base`` = ``[0, 1, 1, 1, 1, 1, 6, 7]`` (wanted ``[1, 2, 3, 4]``).
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with one early return added; every other name resolves in the forked module.
# ruff: noqa: F821


def _shares_memory(a: Any, b: torch.Tensor) -> bool:
    if (
        not isinstance(a, torch.Tensor)
        or a.device.type != "cpu"
        or b.device.type != "cpu"
        or not a.numel()
        or not b.numel()
    ):
        return False
    # views of different storages never share bytes: one comparison for the common case
    # BUG (r55 b06): the next line; a from_numpy storage starts where its array starts, mid-buffer
    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():
        return False
    (alo, ahi), (blo, bhi) = _byte_span(a), _byte_span(b)
    return alo < bhi and blo < ahi


def target() -> Target:
    f = fork("b06", h2d={"_shares_memory": _shares_memory})
    return make_target(
        "b06_overlap_skipped_across_storages",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b06"),
    )
