"""b15 (CPU): for a 1-D ``StagedWriteTensor`` ``stage_write`` drops ``start`` instead of checking it.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write``.

Change: a simplification ("a 1-D tensor's rows are single elements, so ``start`` can only be 0:
don't make callers pass it right")::

    index, start = self._check(index, start, len(values))                       # reference

    if self.gpu.dim() == 1:                                                      # bug
        start = 0
    index, start = self._check(index, start, len(values))

Writes with ``start`` 0 (every ``stage_write_elem``) behave as the reference, and so do 2-D and 3-D
tensors. Into a 1-D tensor, a write whose ``start`` is past its one-element row (1, a negative
one, ``2**40``, ``1.5``: even a non-int) is no longer refused: its value lands in row ``index``. A
caller that computed ``start`` as a flat offset (vLLM's kernel adds ``start`` to ``row * stride``:
``stage_write(0, 3, [x])`` writes element 3 there) now silently writes element 0.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor``: "a row past the tensor, or ``start +
len(x)`` past the row, is refused at staging time and nothing is staged; a 1-D tensor's rows are
single elements (``start`` 0, one value)"; ``stage_write``: "Raises: TypeError: ``index`` or
``start`` not an int ... IndexError: ... ``start + len(x)`` past the row"; docs/contracts.md,
staged-write: "A write past the tensor's rows or past its row's end, or with a negative index or
start, raises ``IndexError`` or ``ValueError`` naming ``index`` or ``start`` ..., and nothing is staged".

Smallest input: ``t = StagedWriteTensor(4, torch.int32, 'cpu'); t.stage_write(1, 1, [5]); t.apply_write(); t.gpu``.
Reference: ``IndexError: start=1 with 1 values is outside a row of 1 elements``; ``.gpu`` stays zeros.
Bug: no error; ``tensor([0, 5, 0, 0], dtype=torch.int32)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def stage_write(self: Any, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
        raise TypeError("x must hold numbers (int or float)")
    if self.gpu.dim() == 1:  # BUG (r54 b15): a 1-D tensor's `start` dropped, not checked
        start = 0
    index, start = self._check(index, start, len(values))
    if not values:
        return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b15")
    return make_target(
        "b15_staged_1d_start_ignored",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b15", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
