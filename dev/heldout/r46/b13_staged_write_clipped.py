"""b13 (CPU): a staged write that runs past its row is clipped instead of refused.

Where: ``buffer_utils.StagedWriteTensor.stage_write``. The reference checks
``start + len(x) <= row length`` (``_check``) and refuses a longer write with
``IndexError``, staging nothing. The bug checks the row and the start alone
(``self._check(index, start, 0)``) and keeps what fits, ``values = values[: self._row_len
- start]`` ("a block table row is full: drop the blocks past max_num_blocks").

Why realistic: a "graceful" handling of an overflowing block table; the caller is never
told that part of its write was dropped, so the device tensor silently disagrees with the
host's bookkeeping.

Smallest input: ``t = StagedWriteTensor((1, 3), torch.int32, "cpu"); t.stage_write(0, 2,
[7, 8]); t.apply_write()``. Reference: ``IndexError: start=2 with 2 values is outside a row
of 3 elements`` (nothing staged). Bug: no error, ``t.gpu == [[0, 0, 7]]`` (the 8 is lost).
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def stage_write(self, index, start, x):
    """Stage ``x`` into row ``index`` from column ``start``; an empty ``x`` stages nothing."""
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
        raise TypeError("x must hold numbers (int or float)")
    index, start = self._check(index, start, 0)  # BUG: was self._check(index, start, len(values))
    values = values[: self._row_len - start]  # BUG (added): a write past the row keeps what fits
    if not values:
        return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b13")
    return make_target(
        "b13_staged_write_clipped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b13", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
