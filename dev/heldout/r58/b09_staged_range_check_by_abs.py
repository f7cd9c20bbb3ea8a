"""b09 (CPU): an early range check at staging compares ``abs(v)`` with the integer dtype's maximum.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write`` (and ``stage_write_elem`` through it), int32 and
int64 tensors.

Change: out-of-range values refused when they are staged, not at ``apply_write`` ("the contract allows either;
at staging the caller's stack names the bad write"), written as one magnitude test::

    index, start = self._check(index, start, len(values))                           # reference

    if not self.dtype.is_floating_point:                                            # bug (inserted before)
        limit = torch.iinfo(self.dtype).max
        if any(abs(v) > limit for v in values):
            raise ValueError(f"x holds a value outside {self.dtype}'s range")
    index, start = self._check(index, start, len(values))

Two's-complement ranges are not symmetric: ``-limit - 1`` (``-2**31`` for int32, ``-2**63`` for int64) is in range,
its magnitude is not below ``limit``. The most negative value, a common sentinel (``INT32_MIN`` / ``INT64_MIN``
for "no position", "padding" in index tables), is refused, and so is a float whose truncation is that value
(``-2147483648.5`` into int32, which the reference's conversion takes to ``-2147483648``).

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "Contents are converted as the reference's
``async_tensor_h2d`` converts (a value out of the dtype's range is refused at apply time ...)"; docs/reference.md,
Integer targets: "Refused with ``ValueError``: ... a float whose truncated value lies outside the dtype's range ...
and an integer outside it" (``-2**31`` is inside int32's).

Smallest input: ``t = StagedWriteTensor(1, torch.int32, 'cpu'); t.stage_write_elem(0, -2**31); t.apply_write(); t.gpu``.
Reference: ``tensor([-2147483648], dtype=torch.int32)``. Bug: ``ValueError: x holds a value outside torch.int32's
range`` (nothing staged).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def stage_write(self: Any, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    """Stage ``x`` into row ``index`` from column ``start``; an empty ``x`` stages nothing."""
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(
        isinstance(v, (bool, np.timedelta64)) or not isinstance(v, (int, float, np.integer, np.floating))
        for v in values
    ):
        raise TypeError("x must hold numbers (int or float)")
    if not self.dtype.is_floating_point:  # refused at staging, where the caller's stack names the write
        limit = torch.iinfo(self.dtype).max
        if any(abs(v) > limit for v in values):  # BUG (r58 b09): -limit - 1 is in range; its magnitude is not
            raise ValueError(f"x holds a value outside {self.dtype}'s range")
    index, start = self._check(index, start, len(values))
    if not values:
        return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b09")
    return make_target(
        "b09_staged_range_check_by_abs",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b09", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
