"""b07 (CPU): ``_write`` picks "the last write of each position" from an unstable ``np.argsort``.

Where: module function ``_write`` (used by ``StagedWriteTensor.apply_write`` and
``FusedStagedWriter.apply``).

Change: the dedupe ``np.unique(positions[::-1], return_index=True)`` (then mapped back) was
replaced by one argsort that groups equal positions and keeps the last of each group::

    order = np.argsort(positions)                                        # was: np.unique(positions[::-1], ...)
    last = np.r_[positions[order][1:] != positions[order][:-1], True]    # the last of each group
    keep = np.sort(order[last])

Why plausible: "np.unique sorts anyway, one argsort is cheaper and avoids the reversal".
It is right only if the sort is stable: ``np.argsort``'s default kind (quicksort; on x86
numpy dispatches to a SIMD sort) does not keep equal positions in staging order, so "the
last of each group" is an arbitrary one of the writes to that element. With distinct
positions it is exact.

Promise broken: ``StagedWriteTensor``: "``apply_write()`` writes every staged write ... in
staging order (a later write of the same element wins)"; docs/reference.md: "overlapping
staged writes apply in staging order (the last staged write of an element wins)";
docs/contracts.md (staged-write): "the last staged write of an element winning".

Smallest input (this host's numpy 2.4, AVX2): ``t = StagedWriteTensor(3, torch.int32, "cpu");
t.stage_write_elem(2, 1); t.stage_write_elem(1, 2); t.stage_write_elem(0, 3);
t.stage_write_elem(0, 4); t.apply_write()`` (positions [2, 1, 0, 0]).
Reference: ``.gpu`` = [4, 2, 1].
Bug: ``.gpu`` = [3, 2, 1] (the earlier write to element 0 wins). Which inputs show it
depends on numpy's sort dispatch (a SIMD quicksort where the CPU has AVX2/AVX-512, an
introsort elsewhere); either way equal keys carry no order guarantee, and schedules with
many rewrites of the same elements are where it shows.
"""

from __future__ import annotations

from ._bu import bu_fork, bu_target

TAG, SHORT = "b07", "b07_staged_dedupe_unstable_argsort"


def _write(gpu, positions, contents) -> None:
    """``gpu.view(-1)[positions] = contents`` with the last write of a position winning, on ``gpu``'s current stream."""
    order = np.argsort(positions)  # noqa: F821  BUG: unstable (was np.unique(positions[::-1], return_index=True))
    last = np.r_[positions[order][1:] != positions[order][:-1], True]  # noqa: F821
    keep = np.sort(order[last])  # noqa: F821
    where = async_tensor_h2d(positions[keep], device=gpu.device)  # noqa: F821
    gpu.view(-1).index_copy_(0, where, contents.index_select(0, async_tensor_h2d(keep, device=gpu.device)))  # noqa: F821


def classes():
    return bu_fork(TAG, names={"_write": _write})


def target():
    return bu_target(TAG, SHORT, classes())
