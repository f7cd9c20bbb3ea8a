"""b17 (CPU): ``stage_write(index, start, x)`` with a bare number ``x`` stages it as one value instead of raising ``TypeError``.

Where: ``h2d_impl/buffer_utils.py::StagedWriteTensor.stage_write``, the conversion of ``x``.

Change (the refusal of a non-iterable ``x`` turned into a convenience)::

    except TypeError:
        raise TypeError(f"x must be an iterable of numbers, got ...") from None   # reference
    except TypeError:
        values = [x]                                                            # bug: "a lone number is one value, as stage_write_elem"

The type check on the values that follows still refuses strings, ``None`` and bools, so only
numbers get through: ``stage_write(0, 2, 7)`` writes 7 at column 2. That hides the caller's
mistake it exists to catch: ``stage_write(i, start, n)`` where ``n`` is the count of the values
meant (``stage_write(i, start, len(tokens))``: the length is staged as a token id), or or an
argument order slip (``stage_write(i, value, start)`` with ``start`` an int); the reference refuses every such
call with ``TypeError`` naming ``x`` before anything is staged.

Promise broken: h2d_impl/buffer_utils.py ``stage_write`` docstring: "Stage ``x`` into row
``index`` from column ``start``" and Raises: "TypeError: ``index`` or ``start`` not an int, or
``x`` not an iterable of numbers"; docs/reference.md, Errors: "`TypeError` (wrong kind) ...
naming the argument".

Smallest input: ``t = StagedWriteTensor((2, 4), torch.int32, 'cpu'); t.stage_write(0, 0, 5)``.
Reference: ``TypeError: x must be an iterable of numbers, got int``. Bug: staged; after
``t.apply_write()``, ``t.gpu[0] == [5, 0, 0, 0]``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target


def stage_write(self, index: int, start: int, x: Iterable[int] | Iterable[float]) -> None:
    try:
        values = list(x)
    except TypeError:
        values = [x]  # BUG (r51 b17): a bare number taken as one value
    if any(isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) for v in values):
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
    f = fork("b17")
    return make_target(
        "b17_staged_bare_number_accepted",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b17", methods={"StagedWriteTensor": {"stage_write": stage_write}}),
    )
