"""b05 (CPU): ``clear_staged_writes`` forgets one of the parallel lists: the staged contents survive an apply.

Where: ``StagedWriteTensor.clear_staged_writes`` (called by ``apply_write`` and
``FusedStagedWriter.apply``).

Change: the line ``self._staged_write_contents.clear()`` is missing (the other four resets
stay).

Why plausible: five parallel bookkeeping fields reset by hand; one dropped while editing
(vLLM's own version rebuilds its pools and resets each list separately). Nothing fails on
the first apply; the indices, starts and cumulative lengths are cleared, so the next batch
looks well formed.

Promise broken: ``StagedWriteTensor``: "``apply_write()`` writes every staged write into
``.gpu`` ... in staging order ..., and clears them"; ``clear_staged_writes``: "Drop every staged
write"; docs/contracts.md (staged-write): "After each apply ``.gpu`` equals a numpy model bit
for bit". The second batch's cumulative length counts the first batch's values, so its
write spans the old values followed by its own.

Smallest input: ``t = StagedWriteTensor(4, torch.int32, "cpu"); t.stage_write_elem(0, 5);
t.apply_write(); t.stage_write_elem(2, 7); t.apply_write()``.
Reference: ``.gpu`` = [5, 0, 7, 0].
Bug: ``.gpu`` = [5, 0, 5, 7] (the second apply writes [5, 7] from position 2).
"""

from __future__ import annotations

from ._bu import bu_fork, bu_target

TAG, SHORT = "b05", "b05_staged_clear_keeps_contents"


def clear_staged_writes(self) -> None:
    """Drop every staged write."""
    self._staged_write_indices.clear()
    self._staged_write_starts.clear()
    # BUG: self._staged_write_contents.clear() missing
    self._staged_write_cu_lens.clear()
    self._staged_write_max_len = 0


def classes():
    return bu_fork(TAG, methods={"StagedWriteTensor": {"clear_staged_writes": clear_staged_writes}})


def target():
    return bu_target(TAG, SHORT, classes())
