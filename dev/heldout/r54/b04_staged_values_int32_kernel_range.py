"""b04 (CPU): ``stage_write`` refuses integer values outside int32 for every integer tensor, int64 ones included.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write`` (a value check added).

Change: "fail at staging, not at apply": a range check on the staged integers, its bounds taken
from the write kernel ("vLLM's ``_apply_write_kernel`` moves contents as int32")::

    index, start = self._check(index, start, len(values))                       # reference

    if not self.dtype.is_floating_point and any(                                 # bug
        isinstance(v, (int, np.integer)) and not _INT32_MIN <= v <= _INT32_MAX for v in values
    ):
        raise ValueError("x holds an integer outside the write kernel's int32 range")
    index, start = self._check(index, start, len(values))

For int32 tensors this only moves the refusal of an out-of-range value from ``apply_write`` to
``stage_write`` (both allowed). For an int64 tensor (Model Runner V2's ``seeds``, token counts
past 2**31, positions of long contexts) every value past int32 is refused, though int64 holds it
and the reference converts and writes it.

Promise broken: h2d_impl/buffer_utils.py ``STAGED_WRITE_DTYPES``: "The dtypes a
:class:`StagedWriteTensor` holds" (int64 among them) and the class: "Contents are converted as the
reference's ``async_tensor_h2d`` converts (a value out of the dtype's range is refused at apply
time, before anything is written)"; docs/contracts.md, staged-write: "After each apply ``.gpu``
equals a numpy model bit for bit: ... values converted as ``torch.tensor`` converts them".

Smallest input: ``t = StagedWriteTensor(1, torch.int64, 'cpu'); t.stage_write_elem(0, 2**31); t.apply_write(); t.gpu``.
Reference: ``tensor([2147483648])``. Bug: ``ValueError: x holds an integer outside the write kernel's int32 range`` at staging; ``.gpu`` stays ``[0]``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def stage_write(self: Any, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    try:
        values = list(x)
    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
        raise TypeError("x must hold numbers (int or float)")
    if not self.dtype.is_floating_point and any(  # BUG (r54 b04): int32 bounds for every integer dtype
        isinstance(v, (int, np.integer)) and not _INT32_MIN <= v <= _INT32_MAX for v in values
    ):
        raise ValueError("x holds an integer outside the write kernel's int32 range")
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
        "b04_staged_values_int32_kernel_range",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork(
            "b04",
            names={"_INT32_MIN": _INT32_MIN, "_INT32_MAX": _INT32_MAX},
            methods={"StagedWriteTensor": {"stage_write": stage_write}},
        ),
    )
