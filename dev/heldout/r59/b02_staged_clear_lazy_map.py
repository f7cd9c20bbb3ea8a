"""b02 (CPU): ``clear_staged_writes`` empties the four staging lists with a bare ``map(...)``, which never runs.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.clear_staged_writes`` (called by every ``apply_write``, every
fused apply and by engines directly).

Change: the four ``.clear()`` calls folded into one line ("one call for the four lists")::

    self._staged_write_indices.clear()                                                  # reference
    self._staged_write_starts.clear()
    self._staged_write_contents.clear()
    self._staged_write_cu_lens.clear()
    self._staged_write_max_len = 0

    map(list.clear, (self._staged_write_indices, self._staged_write_starts,             # bug
                     self._staged_write_contents, self._staged_write_cu_lens))
    self._staged_write_max_len = 0

In Python 3 ``map`` is lazy: the expression builds an iterator that nobody consumes, so no list is cleared
(Python 2's ``map`` ran eagerly; linters flag it, a reviewer reading "map clear over the lists" does not). Only
``_staged_write_max_len`` is reset. Every write ever staged stays staged: ``clear_staged_writes()`` drops nothing,
and every ``apply_write`` (and fused apply) writes all earlier writes again before the new ones. Values look right
as long as nothing else writes ``.gpu`` (the old writes are re-applied first and the newest still win), but a
write the caller cleared lands anyway, a ``.gpu`` reset by the engine (a request's row zeroed, a CUDA-graph
buffer refilled) gets the old contents back at the next apply, and the staging lists grow every step.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor.clear_staged_writes``: "Drop every staged write";
``StagedWriteTensor``: "``apply_write()`` writes every staged write into ``.gpu`` ... and clears them";
docs/contracts.md, fused-writes: "clears every staged write (a zeroed tensor stays zero through a later
``apply_write``)".

Smallest input: ``t = StagedWriteTensor(1, torch.int32, 'cpu'); t.stage_write_elem(0, 5); t.clear_staged_writes();
t.apply_write(); t.gpu``.
Reference: ``[0]``. Bug: ``[5]`` (and after ``t.apply_write(); t.gpu.zero_(); t.apply_write()``: ``[0]`` against
``[5]``).
"""

from __future__ import annotations

from typing import Any

from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def clear_staged_writes(self: Any) -> None:
    """Drop every staged write."""
    map(  # BUG (r59 b02): a lazy map that is never consumed: no list is cleared
        list.clear,
        (
            self._staged_write_indices,
            self._staged_write_starts,
            self._staged_write_contents,
            self._staged_write_cu_lens,
        ),
    )
    self._staged_write_max_len = 0


def target() -> Target:
    f = fork("b02")
    return make_target(
        "b02_staged_clear_lazy_map",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b02", methods={"StagedWriteTensor": {"clear_staged_writes": clear_staged_writes}}),
    )
