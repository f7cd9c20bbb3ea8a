"""b10 (CPU): ``stage_write`` takes 0-d tensors as numbers, so a tensor (a row of one) can be staged as ``x``.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write`` (every ``stage_write`` and ``stage_write_elem``).

Change: the value check widened ("samplers hand over tensor rows (``topk(...).indices[i]``): ``list(row)`` gives
0-d tensors, which are numbers too")::

    if any(isinstance(v, (bool, np.timedelta64)) or not isinstance(v, (int, float, np.integer, np.floating))
           for v in values): raise TypeError(...)                                            # reference

    if any(isinstance(v, (bool, np.timedelta64)) or not (isinstance(v, (int, float, np.integer, np.floating))
           or isinstance(v, torch.Tensor) and v.dim() == 0) for v in values): raise TypeError(...)   # bug

A 0-d tensor is not a number of the kinds the check names: it carries a dtype of its own (``torch.bool`` among
them, which the check refuses as a Python or numpy bool), a device and autograd state. Staged, it reaches the
apply's conversion (``async_tensor_h2d`` of a list of 0-d tensors, which numpy reads through ``__array__``): a bool
tensor is written as 1 or 0, a float tensor is truncated into an int row, a tensor that requires grad makes the
apply raise (numpy cannot read it) and, the apply having failed, stay staged so that every later apply of the
tensor raises; and the snapshot is gone: what is staged is the caller's tensor object, read at apply time, so an
in-place change between ``stage_write`` and ``apply_write`` reaches ``.gpu``.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor.stage_write``: "Raises: TypeError: ... ``x`` not an
iterable of numbers"; docs/contracts.md, staged-write: "The caller's list is overwritten right after each
``stage_write``: what is applied is what was staged".

Smallest input: ``t = StagedWriteTensor(2, torch.int32, 'cpu'); r = torch.tensor([5]); t.stage_write(0, 0, r);
r[0] = 7; t.apply_write(); t.gpu``.
Reference: ``TypeError: x must hold numbers (int or float)`` at ``stage_write``; ``.gpu == [0, 0]``. Bug: ``.gpu ==
[7, 0]`` (the tensor staged, read at apply after the caller changed it; ``torch.tensor([True])``: ``[1, 0]``).
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
        isinstance(v, (bool, np.timedelta64))
        or not (
            isinstance(v, (int, float, np.integer, np.floating))
            or isinstance(v, torch.Tensor) and v.dim() == 0  # BUG (r59 b10): 0-d tensors taken as numbers
        )
        for v in values
    ):
        raise TypeError("x must hold numbers (int or float)")
    index, start = self._check(index, start, len(values))
    if not values:
        return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b10")
    return make_target(
        "b10_staged_values_accept_0d_tensors",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b10", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
