"""b02 (CPU): ``stage_write``'s check of the values is one numpy dtype inference, whose promotion hides a bool among numbers.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write`` (``stage_write_elem`` too).

Change: the per-element ``isinstance`` scan vectorised ("a 32k-token prompt staged by
``all_token_ids.stage_write`` paid a Python-level ``isinstance`` per token; numpy's inference
classifies the whole list in C")::

    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):  # reference
        raise TypeError("x must hold numbers (int or float)")

    if values and np.asarray(values).dtype.kind not in "iuf":                                          # bug
        raise TypeError("x must hold numbers (int or float)")

It refuses what the reference refuses when every value is of one kind (``[True]`` is kind ``b``,
``[None]`` and ``[Fraction(1, 2)]`` kind ``O``, ``['1']`` kind ``U``, ``[1j]`` kind ``c``). But numpy
promotes a bool beside numbers to the numbers' kind: ``[5, True]`` is an int64 array, ``[1.5,
np.bool_(True)]`` a float64 one, so the bool is staged and written as 1. (Two side effects: a
nested list, ``[1, [2, 3]]``, now raises numpy's ``ValueError`` "inhomogeneous shape" instead of
``TypeError``; an int past 2**64 is refused at staging as ``TypeError`` instead of at apply.)

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor.stage_write``: "Raises: TypeError:
``index`` or ``start`` not an int, or ``x`` not an iterable of numbers"; docs/contracts.md,
staged-write: "A write whose ``x`` ... holds a value that is not an int or a float (``Fraction``,
``Decimal``, complex, str, None, bool, ``np.complex64``, ``np.bool_``), is refused naming ``x`` at staging
and nothing of it is staged".

Smallest input: ``t = StagedWriteTensor((1, 2), torch.int32, 'cpu'); t.stage_write(0, 0, [5, True]);
t.apply_write(); t.gpu``.
Reference: ``TypeError: x must hold numbers (int or float)``; ``.gpu`` ``[[0, 0]]``.
Bug: no error; ``.gpu`` ``[[5, 1]]``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def stage_write(self: Any, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    """Stage ``x`` into row ``index`` from column ``start``; an empty ``x`` stages nothing.

    Raises:
        TypeError: ``index`` or ``start`` not an int, or ``x`` not an iterable of numbers.
        IndexError: ``index`` past the rows, or ``start + len(x)`` past the row.
    """
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if values and np.asarray(values).dtype.kind not in "iuf":  # BUG (r56 b02): numpy's promotion as the type test
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
    f = fork("b02")
    return make_target(
        "b02_staged_type_scan_by_numpy_kind",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
