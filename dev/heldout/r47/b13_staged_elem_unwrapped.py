"""b13 staged_elem_unwrapped (CPU) -- ``buffer_utils.StagedWriteTensor.stage_write_elem``.

What changed: the one value is passed on without wrapping it in a list::

    self.stage_write(index, 0, [x])     # reference
    self.stage_write(index, 0, x)       # bug

Realistic: vLLM's ``stage_write_elem`` appends ``x`` to its lists directly; rewritten to
delegate to ``stage_write`` (for its checks), the brackets are forgotten. ``stage_write``
then calls ``list(x)`` on a number.

Promise broken (buffer_utils: "``stage_write_elem(index, x)``: Stage the one value ``x`` into
row ``index``, column 0"; contract ``staged-write``: schedules of ``stage_write``,
``stage_write_elem`` and ``apply_write`` match the numpy model).

Smallest input: ``t = StagedWriteTensor(2, torch.int32, "cpu")``;
``t.stage_write_elem(1, 5)``; ``t.apply_write()``: reference ``t.gpu == [0, 5]``; bug raises
``TypeError`` ("x must be an iterable of numbers, got int").
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def stage_write_elem(self, index, x):
    self.stage_write(index, 0, x)


def target() -> Target:
    f = fork("b13")
    return make_target(
        "b13_staged_elem_unwrapped",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b13", methods={"StagedWriteTensor": {"stage_write_elem": stage_write_elem}}),
    )
