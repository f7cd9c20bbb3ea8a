"""b07 (CPU): ``stage_write``'s empty-write test reads the truth value of ``x``, not of the staged list.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write`` (and ``stage_write_elem`` through it).

Change: vLLM's own test restored ("vLLM returns on ``if not x:``; keep its spelling")::

    if not values:                                                                  # reference
        return

    if not x:                                                                       # bug
        return

For the lists and tuples vLLM's callers pass, the two agree. For a numpy array (``stage_write(req_idx, 0,
positions)`` with ``positions`` an ``np.ndarray``, as the M-RoPE and block-table paths hold them) ``not x`` is
numpy's truth value: a one-element array holding ``0`` is falsy, so the write of a single 0 is dropped without a
word (the element keeps its old value); an array of two or more elements raises ``ValueError: The truth value of
an array with more than one element is ambiguous`` for a valid write (nothing staged). Tensors are refused before
either, as in the reference.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor.stage_write``: "Stage ``x`` into row ``index`` from column
``start``; an empty ``x`` stages nothing" (an empty ``x``, not a falsy one); docs/contracts.md, staged-write: "the
values of a write as a list, a tuple, a generator, a dict's values ... or a list of numpy scalars" (any iterable of
numbers, as vLLM's ``stage_write`` takes it).

Smallest input: ``t = StagedWriteTensor(1, torch.int32, 'cpu'); t.stage_write_elem(0, 5); t.apply_write();
t.stage_write(0, 0, np.array([0])); t.apply_write(); t.gpu``.
Reference: ``[0]``. Bug: ``[5]`` (and ``t.stage_write(0, 0, np.array([1, 2]))`` on a row of 2: ``ValueError``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
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
    index, start = self._check(index, start, len(values))
    if not x:  # BUG (r58 b07): numpy's truth value of x (array([0]) is falsy), not the emptiness of the write
        return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b07")
    return make_target(
        "b07_staged_empty_test_on_x",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b07", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
