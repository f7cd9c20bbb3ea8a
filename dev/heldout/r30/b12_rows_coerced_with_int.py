"""``CpuGpuBuffer`` coerces the row count with ``int(n)``: floats and numeric strings are accepted.

``_rows`` keeps the refusals of bools and non-scalar tensors but converts the rest with
``int(n)`` instead of ``operator.index(n)`` ("accept numpy and tensor scalars"). So
``copy_to_gpu(2.5)`` copies 2 rows, ``copy_to_gpu(2.0)`` and ``copy_to_cpu("3")`` copy
2 and 3; documented: a float or a string ``n`` raises ``TypeError`` naming ``n``, copying
nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.h2d_impl import CpuGpuBuffer

from ._common import make_target


class Buffer(CpuGpuBuffer):
    def _rows(self, n: Any) -> int | None:
        """The reference's ``_rows`` with ``int(n)`` in place of ``operator.index(n)``."""
        if n is None:
            return None
        if isinstance(n, (bool, np.bool_)) or (
            isinstance(n, torch.Tensor)
            and (n.dim() != 0 or n.dtype is torch.bool or n.is_floating_point() or n.is_complex())
        ):
            raise TypeError(f"n must be an int or None, got {n!r}")
        try:
            rows = int(n)  # BUG: int() truncates floats and parses strings; operator.index refuses both
        except (TypeError, ValueError):
            raise TypeError(f"n must be an int or None, got {n!r}") from None
        if not 0 <= rows <= self.capacity:
            raise IndexError(f"n={rows} is outside [0, {self.capacity}] (the buffer's row capacity)")
        return rows


def target():
    return make_target("b12-rows-coerced-with-int", buffer_cls=Buffer)
