"""b18 (CPU-visible, buffer_utils.py ``StagedWriteTensor.clear_staged_writes``): the reset rebinds two lists to one object.

What changed: four ``.clear()`` calls became rebindings, the first two chained::

    self._staged_write_indices = self._staged_write_starts = []
    self._staged_write_contents = []
    self._staged_write_cu_lens = []

Why an engineer would write it: a "simplification" of the reset (fresh lists, one line
less); the chained assignment makes ``_staged_write_indices`` and ``_staged_write_starts``
*the same list*. Nothing shows until a write is staged after a clear (``apply_write`` clears
after every successful apply): then each ``stage_write`` appends its index and its start to
that one list, ``staged_positions`` zips three lists of different lengths (``strict=True``)
and every later ``apply_write`` raises.

Promise broken: ``apply_write()`` "writes every staged write into ``.gpu`` ... and clears them"
and ``clear_staged_writes()`` "Drop every staged write" (docstrings); contracts.md
staged-write: after each apply ``.gpu`` equals the numpy model; fused-writes: "a zeroed
tensor stays zero through a later ``apply_write``" / writes apply after a clear. An interplay
of consecutive apply cycles.

Smallest input: ``t = StagedWriteTensor(2, torch.int32, "cpu"); t.stage_write(0, 0, [5]);
t.apply_write(); t.stage_write(1, 0, [7]); t.apply_write(); t.gpu``.
Reference: ``tensor([5, 7])``. Bug: the second ``apply_write`` raises ``ValueError: zip()
argument 3 is shorter than arguments 1-2`` and ``t.gpu`` stays ``[5, 0]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer_utils as _bu

from ._common import buffer_utils_ns, fork, make_target


class BuggyStagedWriteTensor(_bu.StagedWriteTensor):
    def clear_staged_writes(self) -> None:
        """Drop every staged write."""
        self._staged_write_indices = self._staged_write_starts = []  # BUG: chained: one list for indices and starts
        self._staged_write_contents = []
        self._staged_write_cu_lens = []
        self._staged_write_max_len = 0


def target() -> Target:
    f = fork("b18")
    return make_target(
        "b18_staged_clear_chained_assign",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(StagedWriteTensor=BuggyStagedWriteTensor),
    )
