"""b09 (CPU): ``stage_write``'s value check is ``np.isscalar``, which calls strings, complex and Fractions scalars.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write`` (every ``stage_write`` and ``stage_write_elem``).

Change: the type scan shortened ("``np.isscalar`` is true for Python and numpy numbers alike: one call instead of
four ``isinstance`` tuples")::

    if any(isinstance(v, (bool, np.timedelta64)) or not isinstance(v, (int, float, np.integer, np.floating))
           for v in values): raise TypeError(...)                                            # reference

    if any(isinstance(v, (bool, np.bool_)) or not np.isscalar(v) for v in values):          # bug
        raise TypeError(...)

``np.isscalar`` is true for every ``numbers.Number`` (``Fraction``, ``Decimal``, ``complex``), for ``str`` and
``bytes``, and for every numpy scalar (``np.complex64``, ``np.timedelta64``, ``np.datetime64``, ``np.str_``). Those
are now staged. The refusal moves from ``stage_write`` (nothing staged, the argument named) to the next
``apply_write``, whose conversion refuses them (``TypeError``/``ValueError``), and a failed apply keeps its writes:
the bad value stays staged, so every later ``apply_write`` of that tensor (the good writes of later steps
included) raises too, until someone calls ``clear_staged_writes()``. A logit bias given as ``Fraction`` or a token
id read as a string from a request poisons the tensor for good.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor.stage_write``: "Raises: TypeError: ... ``x`` not an
iterable of numbers"; docs/reference.md, Model Runner V2: "bounds are exceptions naming the argument, raised before
anything is staged or written: ... values that are not int or float numbers (``TypeError``: bools, ``Fraction``,
``np.timedelta64``)".

Smallest input: ``t = StagedWriteTensor(1, torch.float32, 'cpu'); t.stage_write_elem(0, Fraction(1, 2))``.
Reference: ``TypeError: x must hold numbers (int or float)``; nothing staged. Bug: staged; the next ``apply_write()``
raises ``TypeError`` and leaves it staged (so does the one after a good ``stage_write_elem(0, 0.25)``).
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
    if any(isinstance(v, (bool, np.bool_)) or not np.isscalar(v) for v in values):  # BUG (r59 b09): np.isscalar
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
    f = fork("b09")
    return make_target(
        "b09_staged_values_by_isscalar",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b09", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
