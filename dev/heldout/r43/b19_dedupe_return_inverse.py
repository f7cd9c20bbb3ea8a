"""b19 (CPU): the last-write dedupe asks ``np.unique`` for ``return_inverse`` instead of ``return_index``.

Where: buffer_utils.py, ``_write``.
Change: ``_, last_rev = np.unique(positions[::-1], return_index=True)`` -> ``..., return_inverse=True)``.
Why plausible: a misremembered keyword of the same function (both return a second int array); with
distinct positions, and with many duplicate patterns, the inverse happens to select a consistent set of
(position, value) pairs, so simple tests pass.
Promise broken: StagedWriteTensor docstring: "apply_write() writes every staged write into .gpu ... (a later
write of the same element wins)"; docs/reference.md: "overlapping staged writes apply in staging order".
Smallest input:
    t = StagedWriteTensor(4, torch.int32, "cpu")
    t.stage_write_elem(2, 7); t.stage_write_elem(1, 8); t.stage_write_elem(1, 9); t.apply_write()
Reference: tensor([0, 9, 7, 0]). Bug: tensor([0, 9, 0, 0]) (the write of element 2 is lost).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target

from ._bu import bu_fork, bu_target

TAG = "b19"


def _write(gpu, positions, contents):
    _, last_rev = np.unique(positions[::-1], return_inverse=True)  # BUG: was return_index=True
    keep = np.sort(len(positions) - 1 - last_rev)
    where = async_tensor_h2d(positions[keep], device=gpu.device)
    gpu.view(-1).index_copy_(0, where, contents.index_select(0, async_tensor_h2d(keep, device=gpu.device)))


def classes():
    return bu_fork(TAG, names={"_write": _write})


def target() -> Target:
    return bu_target(TAG, "b19_dedupe_return_inverse", classes())
