"""b19 (CPU-visible, buffer_utils.py ``StagedWriteTensor.staged_positions``): cumulative lengths read as lengths.

What changed: the running ``begin = end`` at the end of the loop body was dropped, so each
write's length is taken as ``cu_lens[i] - 0``, i.e. the cumulative length.

Why an engineer would write it: vLLM's kernels take ``cu_lens`` (cumulative lengths); the
line that turns them back into per-write lengths looks like loop bookkeeping, and with a
single staged write (the common case in a quick test) the result is unchanged.

Promise broken: ``staged_positions()``: "The staged writes as flat element positions of
``.gpu`` and their values, in staging order" (docstring); ``apply_write()`` writes every staged
write (docstring; contracts.md staged-write: ``.gpu`` equals the numpy model after each apply).
With two or more staged writes there are more positions than values: ``apply_write`` raises
``IndexError`` from ``index_select`` (and ``staged_positions`` returns positions of elements that
were never staged).

Smallest input: ``t = StagedWriteTensor(4, torch.int32, "cpu"); t.stage_write(0, 0, [5]);
t.stage_write(1, 0, [7]); t.apply_write(); t.gpu``.
Reference: ``tensor([5, 7, 0, 0])``. Bug: ``IndexError: index out of range in self``
(``staged_positions()[0]`` is ``[0, 1, 2]`` for two values).
"""

from __future__ import annotations

import numpy as np
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer_utils as _bu

from ._common import buffer_utils_ns, fork, make_target


class BuggyStagedWriteTensor(_bu.StagedWriteTensor):
    def staged_positions(self) -> tuple[np.ndarray, list[int | float]]:
        """The staged writes as flat element positions of ``.gpu`` and their values, in staging order."""
        positions: list[np.ndarray] = []
        begin = 0
        for index, start, end in zip(
            self._staged_write_indices, self._staged_write_starts, self._staged_write_cu_lens, strict=True
        ):
            positions.append(index * self._row_len + start + np.arange(end - begin, dtype=np.int64))
            # BUG: `begin = end` dropped: each write's length is read as its cumulative length
        flat = np.concatenate(positions) if positions else np.zeros(0, dtype=np.int64)
        return flat, list(self._staged_write_contents)


def target() -> Target:
    f = fork("b19")
    return make_target(
        "b19_staged_cu_lens_as_lengths",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(StagedWriteTensor=BuggyStagedWriteTensor),
    )
