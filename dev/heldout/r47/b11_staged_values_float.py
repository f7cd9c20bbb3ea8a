"""b11 staged_values_float (CPU) -- ``buffer_utils.StagedWriteTensor.stage_write``.

What changed: after the type scan, the staged values are normalised to Python floats::

    values = [float(v) for v in values]   # bug: "numpy scalars and ints convert alike"

Realistic: staged contents mix Python ints, numpy integers and floats; normalising them to
one Python type looks like it makes the later conversion uniform. It is exact for int32
and float32 tensors (the dtypes most tests use), and loses every int64 value past 2**53.

Promise broken (contract ``staged-write``: "After each apply ``.gpu`` equals a numpy model
bit for bit ... values converted as ``torch.tensor`` converts them"; buffer_utils:
"Contents are converted as the reference's ``async_tensor_h2d`` converts").

Smallest input: ``t = StagedWriteTensor(1, torch.int64, "cpu")``;
``t.stage_write(0, 0, [2**53 + 1])``; ``t.apply_write()``: reference ``t.gpu ==
[9007199254740993]``; bug ``[9007199254740992]``.
"""

from __future__ import annotations

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target


def stage_write(self, index, start, x):
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):  # noqa: F821
        raise TypeError("x must hold numbers (int or float)")
    values = [float(v) for v in values]
    index, start = self._check(index, start, len(values))
    if not values:
        return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b11")
    return make_target(
        "b11_staged_values_float",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b11", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
