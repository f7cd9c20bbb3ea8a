"""b02 (CPU): row index and start narrowed to int32 ("the kernel's index width") in ``StagedWriteTensor._check``.

Where: ``StagedWriteTensor._check``.

Change: ``index, start = int(index), int(start)`` became
``index, start = np.int32(index), np.int32(start)``.

Why plausible: vLLM's ``StagedWriteTensor`` keeps its staged indices and starts in int32
pools that its Triton kernel reads; an engineer "matching the kernel's dtype" narrows them
at staging. ``np.int32(python_int)`` refuses what does not fit, so it looks safe; but
``np.int32(np.int64(...))`` and ``np.int32(np.uint64(...))`` are C casts that wrap
silently, and engines pass row indices as numpy integers.

Promise broken: docs/contracts.md (staged-write): "row index and start as Python ints or
numpy integers (``np.int64``, ``np.uint64``), as engines pass them", and "A write past the
tensor's rows ... raises ``IndexError`` or ``ValueError`` naming ``index`` ... and nothing is
staged"; ``StagedWriteTensor`` docstring: "a row past the tensor ... is refused at staging
time and nothing is staged". (A Python int index of ``2**31`` now raises ``OverflowError``
from numpy instead of ``IndexError`` naming ``index``.)

Smallest input: ``t = StagedWriteTensor(2, torch.int32, "cpu");
t.stage_write(np.int64(2**32 + 1), 0, [7]); t.apply_write()``.
Reference: ``IndexError: index=4294967297 is outside the tensor's rows [0, 2)``; ``.gpu`` [0, 0].
Bug: accepted as row 1 (``np.int32`` wraps 2**32 + 1 to 1); ``.gpu`` becomes [0, 7].
"""

from __future__ import annotations

from typing import Any

from ._bu import bu_fork, bu_target

TAG, SHORT = "b02", "b02_staged_index_int32_narrowed"


def _check(self, index: Any, start: Any, length: int) -> tuple[int, int]:
    for name, v in (("index", index), ("start", start)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):  # noqa: F821
            raise TypeError(f"{name} must be an int, got {type(v).__name__}")
    index, start = np.int32(index), np.int32(start)  # noqa: F821  BUG: was int(index), int(start)
    if not 0 <= index < self.num_rows:
        raise IndexError(f"index={index} is outside the tensor's rows [0, {self.num_rows})")
    if start < 0 or start + length > self._row_len:
        raise IndexError(f"start={start} with {length} values is outside a row of {self._row_len} elements")
    return index, start


def classes():
    return bu_fork(TAG, methods={"StagedWriteTensor": {"_check": _check}})


def target():
    return bu_target(TAG, SHORT, classes())
