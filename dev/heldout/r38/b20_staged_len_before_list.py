"""b20 (CPU-visible, buffer_utils.py ``StagedWriteTensor.stage_write``): the bounds are checked with ``len(x)`` before ``x`` is materialised.

What changed: ``index, start = self._check(index, start, len(x))`` moved to the top of
``stage_write``, before ``values = list(x)`` (the later check uses the same result).

Why an engineer would write it: "fail fast on a bad row before copying the caller's values";
every list, tuple, ndarray and ``range`` has a ``len``. A generator, a ``map`` or any other
iterator has none: ``len(x)`` raises ``TypeError: object of type 'generator' has no len()``.

Promise broken: ``stage_write(index, start, x)`` takes ``x: Iterable[int] | Iterable[float]``
and raises ``TypeError`` only for "``x`` not an iterable of numbers" (docstring and
signature); vLLM's callers stage ``map(...)``/generator expressions of token ids. (Bounds are
still refused before anything is staged.)

Smallest input: ``t = StagedWriteTensor(2, torch.int32, "cpu"); t.stage_write(0, 0, (v for v in [5]));
t.apply_write(); t.gpu``.
Reference: ``tensor([5, 0])``. Bug: ``TypeError: object of type 'generator' has no len()``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer_utils as _bu

from ._common import buffer_utils_ns, fork, make_target


class BuggyStagedWriteTensor(_bu.StagedWriteTensor):
    def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
        """Stage ``x`` into row ``index`` from column ``start``; an empty ``x`` stages nothing."""
        index, start = self._check(index, start, len(x))  # BUG: len() of the caller's iterable, before list(x)
        try:
            values = list(x)
        except TypeError:
            raise TypeError(f"x must be an iterable of numbers, got {type(x).__name__}") from None
        if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
            raise TypeError("x must hold numbers (int or float)")
        if not values:
            return
        self._staged_write_indices.append(index)
        self._staged_write_starts.append(start)
        self._staged_write_contents.extend(values)
        self._staged_write_cu_lens.append(len(self._staged_write_contents))
        self._staged_write_max_len = max(self._staged_write_max_len, len(values))


def target() -> Target:
    f = fork("b20")
    return make_target(
        "b20_staged_len_before_list",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(StagedWriteTensor=BuggyStagedWriteTensor),
    )
