"""b12 (CPU): ``apply_write`` skips (and keeps staged) every batch of writes that all target row 0.

Where: h2d_impl/buffer_utils.py, ``StagedWriteTensor.apply_write``.
Change: ``if not self._staged_write_indices: return`` -> ``if not np.any(self._staged_write_indices): return``.
Why plausible: written while the staging lists were being turned into numpy arrays (``not arr``
    is ambiguous for arrays, ``np.any`` works for lists and arrays alike); but ``np.any`` asks
    whether some *value* is nonzero, not whether there is any element, and the staged row
    indices are all 0 whenever only the first row (the first request, or a 1-row tensor) was
    written.
Promise broken: StagedWriteTensor's docstring: "``apply_write()`` writes every staged write into
    ``.gpu`` on the current stream, in staging order ... and clears them"; contracts.md
    staged-write: "After each apply ``.gpu`` equals a numpy model bit for bit" (writes "at the
    first and last rows and columns").
Smallest input:
    t = StagedWriteTensor((2, 3), torch.int32, "cpu"); t.stage_write(0, 0, [1, 2, 3]); t.apply_write(); t.gpu
Reference: ``[[1, 2, 3], [0, 0, 0]]``. Bug: ``[[0, 0, 0], [0, 0, 0]]``; the write stays staged and lands
    only at a later ``apply_write`` that also writes another row. ``FusedStagedWriter.apply``
    (which tests the list itself) is unaffected.
"""

from __future__ import annotations

import numpy as np

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target


def apply_write(self) -> None:
    if not np.any(self._staged_write_indices):  # BUG: tests the values (all row 0), not the length
        return
    _write(self.gpu, *_converted(self))  # noqa: F821 (buffer_utils' globals)
    self.clear_staged_writes()


def classes():
    return bu_fork("b12", methods={"StagedWriteTensor": {"apply_write": apply_write}})


def target() -> Target:
    return bu_target("b12", "b12_apply_write_np_any_as_nonempty", classes())
