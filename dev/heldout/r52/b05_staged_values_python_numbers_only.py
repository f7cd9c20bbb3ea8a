"""b05 (CPU): ``stage_write`` accepts only Python ``int``/``float`` values: numpy integers (and float32) are refused.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write`` (``stage_write_elem`` too).

Change (the type tuple, read off the error message "x must hold numbers (int or float)")::

    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):   # reference
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):                            # bug

Python ints and floats (and ``np.float64``, a ``float`` subclass) stage as before. Values taken
from a numpy array (``stage_write(i, 0, arr)``, ``stage_write_elem(i, arr[j])``: token ids,
positions and lengths an engine keeps in numpy) are ``np.int32``/``np.int64``/``np.float32``
scalars and are now refused with ``TypeError``.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor.stage_write`` docstring: "TypeError:
... ``x`` not an iterable of numbers" (numpy integers are numbers; the reference's own check
names ``np.integer`` and ``np.floating``), and the class docstring: "Contents are converted as
the reference's ``async_tensor_h2d`` converts" (which takes numpy scalars).

Smallest input: ``t = StagedWriteTensor((2, 4), torch.int32, 'cpu'); t.stage_write(1, 0, np.arange(1, 4, dtype=np.int32)); t.apply_write(); t.gpu``.
Reference: ``[[0, 0, 0, 0], [1, 2, 3, 0]]``.
Bug: ``TypeError: x must hold numbers (int or float)``; ``.gpu`` stays zeros.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def stage_write(self: Any, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(
        isinstance(v, bool) or not isinstance(v, (int, float)) for v in values
    ):  # BUG (r52 b05): numpy scalars refused
        raise TypeError("x must hold numbers (int or float)")
    index, start = self._check(index, start, len(values))
    if not values:
        return
    self._staged_write_indices.append(index)
    self._staged_write_starts.append(start)
    self._staged_write_contents.extend(values)
    self._staged_write_cu_lens.append(len(self._staged_write_contents))
    self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b05")
    return make_target(
        "b05_staged_values_python_numbers_only",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b05", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
