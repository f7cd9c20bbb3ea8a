"""b04 (CPU): ``stage_write`` scans ``x`` for bad values before copying it: a generator is consumed by the scan.

Where: ``StagedWriteTensor.stage_write``.

Change: the values' type scan moved above ``values = list(x)`` ("refuse bad input before
paying for the copy"), and, being above it, iterates ``x``::

    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in x):
        raise TypeError("x must hold numbers (int or float)")
    try:
        values = list(x)
    ...

Why plausible: a reordering for an early exit; for lists, tuples and arrays (re-iterable)
nothing changes. A generator (``stage_write(i, 0, (v for v in row))``, or ``map(int, ...)``)
is exhausted by the scan, so ``list(x)`` is empty, and an empty write "stages nothing".

Promise broken: docs/contracts.md (staged-write): "the values of a write as a list, a tuple
or a generator"; ``StagedWriteTensor``: "``stage_write(index, start, x)`` stages ``x`` into row
``index`` from column ``start``"; "After each apply ``.gpu`` equals a numpy model".

Smallest input: ``t = StagedWriteTensor(2, torch.int64, "cpu");
t.stage_write(1, 0, (v for v in [5])); t.apply_write()``.
Reference: ``.gpu`` = [0, 5].
Bug: no error, nothing staged; ``.gpu`` = [0, 0].
"""

from __future__ import annotations

from collections.abc import Iterable

from ._bu import bu_fork, bu_target

TAG, SHORT = "b04", "b04_staged_generator_scanned_twice"


def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    # BUG: the type scan moved above the copy, and iterates the caller's x
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in x):  # noqa: F821
        raise TypeError("x must hold numbers (int or float)")
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    index, start = self._check(index, start, len(values))
    if not values:
        return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def classes():
    return bu_fork(TAG, methods={"StagedWriteTensor": {"stage_write": stage_write}})


def target():
    return bu_target(TAG, SHORT, classes())
