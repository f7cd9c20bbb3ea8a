"""b14 staged_check_loop_var (CPU) -- ``buffer_utils.StagedWriteTensor._check``.

What changed: the loop over ``(("index", index), ("start", start))`` tests ``index`` in its
body instead of the loop variable::

    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):          # reference
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):  # bug

so ``start`` is never type-checked, and the ``int(start)`` that follows truncates a float.
Realistic: a loop-variable slip in a two-iteration loop written to avoid repeating the
check; every test with integer arguments passes.

Promise broken (buffer_utils ``stage_write``: "TypeError: ``index`` or ``start`` not an
int"; reference.md: "bounds are exceptions naming the argument, raised before anything is
staged"; contract ``staged-write``).

Smallest input: ``t = StagedWriteTensor((1, 3), torch.int32, "cpu")``;
``t.stage_write(0, 1.5, [7])``: reference ``TypeError`` ("start must be an int"); bug stages
the write at column 1, and ``apply_write()`` gives ``[[0, 7, 0]]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def _check(self, index, start, length):
    for name, v in (("index", index), ("start", start)):
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):  # noqa: F821
            raise TypeError(f"{name} must be an int, got {type(v).__name__}")
    index, start = int(index), int(start)
    if not 0 <= index < self.num_rows:
        raise IndexError(f"index={index} is outside the tensor's rows [0, {self.num_rows})")
    if start < 0 or start + length > self._row_len:
        raise IndexError(f"start={start} with {length} values is outside a row of {self._row_len} elements")
    return index, start


def target() -> Target:
    f = fork("b14")
    return make_target(
        "b14_staged_check_loop_var",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b14", methods={"StagedWriteTensor": {"_check": _check}}),
    )
