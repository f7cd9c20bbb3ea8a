"""b04 (CPU): ``stage_write`` accepts any ``np.number``: numpy complex values are staged, and the apply fails later.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write`` (the value check).

Change: the numpy half of the value check "simplified" to the common base class::

    isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating))   # reference
    isinstance(v, bool) or not isinstance(v, (int, float, np.number))                 # bug

``np.number`` also covers ``np.complexfloating``. Python ints and floats, numpy ints and floats
stage as before; Python complex is still refused. A numpy complex value (``np.complex64(1)``, an
element of a complex array) is staged instead of refused; ``apply_write`` then raises
``TypeError`` (complex into a real dtype) and, as a failed apply keeps its writes, every later
apply raises too until the caller clears them: one bad value at staging time blocks the tensor.

Promise broken: h2d_impl/buffer_utils.py ``StagedWriteTensor.stage_write``: "TypeError: ... ``x``
not an iterable of numbers" (the class: "x must hold numbers (int or float)"); docs/contracts.md,
staged-write: "holds a value that is not an int or a float (..., complex, ...), is refused naming
``x`` at staging and nothing of it is staged".

Smallest input: ``t = StagedWriteTensor(2, torch.float32, 'cpu'); t.stage_write(0, 0, [np.complex64(1)]); t.apply_write()``.
Reference: ``stage_write`` raises ``TypeError: x must hold numbers (int or float)``; nothing staged; ``apply_write`` is a no-op.
Bug: ``stage_write`` returns; ``apply_write`` raises ``TypeError: data is complex (torch.complex64) but dtype=torch.float32 is not ...``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def stage_write(self: Any, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.number)) for v in values):  # BUG (r53 b04)
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
    f = fork("b04")
    return make_target(
        "b04_staged_values_np_number",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
