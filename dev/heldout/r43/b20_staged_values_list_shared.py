"""b20 (CPU): ``staged_positions`` returns the tensor's own list of staged values, not a copy.

Where: buffer_utils.py, ``StagedWriteTensor.staged_positions``.
Change: ``return flat, list(self._staged_write_contents)`` -> ``return flat, self._staged_write_contents``.
Why plausible: "no need to copy 10k values every step: the caller converts them at once" (``_converted``
does, so ``apply_write`` and ``FusedStagedWriter.apply`` are unaffected).
Promise broken: staged_positions docstring: "The staged writes as flat element positions of .gpu and their
values, in staging order" (the returned values change afterwards: memory aliasing of internal state), and
a caller that edits the returned list changes what apply_write writes.
Smallest input:
    t = StagedWriteTensor(4, torch.int32, "cpu"); t.stage_write_elem(1, 5)
    pos, vals = t.staged_positions(); t.apply_write()
    vals
Reference: [5]. Bug: [] (cleared with the tensor's staged writes).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target

TAG = "b20"


def staged_positions(self):
    positions = []
    begin = 0
    for index, start, end in zip(
        self._staged_write_indices, self._staged_write_starts, self._staged_write_cu_lens, strict=True
    ):
        positions.append(index * self._row_len + start + np.arange(end - begin, dtype=np.int64))
        begin = end
    flat = np.concatenate(positions) if positions else np.zeros(0, dtype=np.int64)
    return flat, self._staged_write_contents  # BUG: was list(self._staged_write_contents)


def classes():
    return bu_fork(TAG, methods={"StagedWriteTensor": {"staged_positions": staged_positions}})


def target() -> Target:
    return bu_target(TAG, "b20_staged_values_list_shared", classes())
