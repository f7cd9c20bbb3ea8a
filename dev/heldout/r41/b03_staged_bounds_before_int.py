"""b03 (CPU): the bounds test runs on the caller's numpy scalars, the ``int()`` moved to the return, in ``StagedWriteTensor._check``.

Where: ``StagedWriteTensor._check``.

Change: the line ``index, start = int(index), int(start)`` moved from before the two range
tests to the ``return`` (``return int(index), int(start)``), "convert once, on the way out".

Why plausible: a tidy-up that reads as a no-op: the tests are written with Python
operators and the values are "ints" either way. But ``start + length`` on an ``np.int64``
or ``np.uint64`` start is fixed-width arithmetic: near the type's limit it wraps (numpy
only warns), so a start far past the row passes ``start + length > row_len``.

Promise broken: docs/contracts.md (staged-write): row index and start may be "numpy
integers (``np.int64``, ``np.uint64``), as engines pass them"; "A write ... past its row's
end ... raises ``IndexError`` or ``ValueError`` naming ... ``start`` ... and nothing is
staged"; ``StagedWriteTensor``: "``start + len(x)`` past the row, is refused at staging time
and nothing is staged".

Smallest input: ``t = StagedWriteTensor((1, 4), torch.int32, "cpu");
t.stage_write(0, np.int64(2**63 - 1), [1])``.
Reference: ``IndexError: start=9223372036854775807 with 1 values is outside a row of 4 elements``;
nothing staged.
Bug: a ``RuntimeWarning: overflow encountered in scalar add`` and the write is staged
(``staged_positions()`` holds position 2**63 - 1); every later ``apply_write()`` raises
``IndexError`` from ``index_copy_`` (the tensor is stuck until ``clear_staged_writes()``).
Same with ``np.uint64(2**64 - 1)`` (``start + 1`` wraps to 0; its apply raises ``OverflowError``).
"""

from __future__ import annotations

from typing import Any

from ._bu import bu_fork, bu_target

TAG, SHORT = "b03", "b03_staged_bounds_before_int"


def _check(self, index: Any, start: Any, length: int) -> tuple[int, int]:
    for name, v in (("index", index), ("start", start)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):  # noqa: F821
            raise TypeError(f"{name} must be an int, got {type(v).__name__}")
    if not 0 <= index < self.num_rows:
        raise IndexError(f"index={index} is outside the tensor's rows [0, {self.num_rows})")
    if start < 0 or start + length > self._row_len:
        raise IndexError(f"start={start} with {length} values is outside a row of {self._row_len} elements")
    return int(index), int(start)  # BUG: converted only here (was: before the two tests)


def classes():
    return bu_fork(TAG, methods={"StagedWriteTensor": {"_check": _check}})


def target():
    return bu_target(TAG, SHORT, classes())
