"""b15 (CPU): ``stage_write`` accepts any ``numbers.Real``: a ``Fraction`` is staged, and every later apply of the tensor fails.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write`` (and ``stage_write_elem``,
which calls it), the values' type check.

Change (one ``isinstance``)::

    not isinstance(v, (int, float, np.integer, np.floating))   # reference: the kinds the apply's conversion takes
    not isinstance(v, numbers.Real)                            # bug: "any real number, the numeric tower says so"

``numbers.Real`` covers Python and numpy ints and floats (so every value the reference took is
still taken, bools still refused by the explicit test) but also ``fractions.Fraction`` and any
registered real type, which the apply's conversion (the reference's ``async_tensor_h2d``) refuses.
Such a write is staged instead of refused; ``apply_write()`` then raises ``TypeError: data
contains Fraction element ...`` (naming ``data``, not ``x``), writes nothing, and keeps the writes
staged, so the good writes staged beside it never land until ``clear_staged_writes()``; a
``FusedStagedWriter.apply`` over this tensor fails for every tensor it holds.

Promise broken: h2d_impl/buffer_utils.py ``stage_write`` docstring, Raises: "TypeError: ... ``x``
not an iterable of numbers" with the check's own words "x must hold numbers (int or float)";
docs/reference.md, Errors: "naming the argument" and "bounds are exceptions naming the argument,
raised before anything is staged or written".

Smallest input: ``t = StagedWriteTensor(2, torch.int32, 'cpu'); t.stage_write(0, 0, [Fraction(1, 2)])``.
Reference: ``TypeError: x must hold numbers (int or float)``. Bug: staged; ``t.apply_write()``
raises ``TypeError: data contains Fraction element Fraction(1, 2) ...``.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable

from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(isinstance(v, bool) or not isinstance(v, numbers.Real) for v in values):  # BUG (r51 b15): numbers.Real
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
    f = fork("b15")
    return make_target(
        "b15_staged_values_numbers_real",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        # numbers: the method is rebound to the reference module's globals, which do not import it
        buffer_utils=bu_fork(
            "b15", names={"numbers": numbers}, methods={"StagedWriteTensor": {"stage_write": stage_write}}
        ),
    )
