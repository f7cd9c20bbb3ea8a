"""The staged contents are converted with one numpy ``astype`` instead of the reference's checked conversion.

What changed: the module helper ``_converted`` (used by ``StagedWriteTensor.apply_write``
and ``FusedStagedWriter.apply``) builds the contents as
``torch.from_numpy(np.asarray(values).astype(np_dtype))`` instead of
``async_tensor_h2d(values, dtype=...)``.

Why an engineer would write it: the staged contents are a flat Python list of up to
thousands of numbers per step; one vectorised ``np.asarray(...).astype(...)`` is much
faster than an element-checked conversion, and for every in-range value it gives the
same numbers (floats are truncated toward zero either way).

Promise broken (contract staged-write and fused-writes; StagedWriteTensor's docstring and
reference.md): contents are converted as the reference's ``async_tensor_h2d`` converts
them: a value out of the dtype's range (or NaN/inf into an integer dtype) raises
ValueError at apply time and nothing is written. ``astype`` wraps silently.

Smallest input: ``t = StagedWriteTensor(1, torch.int32, "cpu"); t.stage_write_elem(0,
2**31); t.apply_write()``: reference ValueError, ``.gpu`` stays ``[0]``; bug: no error,
``.gpu == [-2147483648]``. The same through ``FusedStagedWriter("cpu", 1).apply([t], ...)``.
"""

from __future__ import annotations

import numpy as np
import torch
from h2d_contracts.contracts import Target

from ._common import REF, make_target, rebind

_NUMPY_DTYPE = {torch.int32: np.int32, torch.int64: np.int64, torch.float32: np.float32}


def _converted(t):  # type: ignore[no-untyped-def]
    positions, values = t.staged_positions()
    # BUG: one vectorised cast, no range check: out-of-range ints wrap, NaN into ints becomes INT_MIN
    contents = torch.from_numpy(np.asarray(values).astype(_NUMPY_DTYPE[t.gpu.dtype]))
    return positions, contents.to(t.gpu.device, non_blocking=True)


_converted = rebind(_converted, _NUMPY_DTYPE=_NUMPY_DTYPE)


class StagedWriteTensor(REF.StagedWriteTensor):
    apply_write = rebind(REF.StagedWriteTensor.apply_write, _converted=_converted)


class FusedStagedWriter(REF.FusedStagedWriter):
    apply = rebind(REF.FusedStagedWriter.apply, _converted=_converted)


def target() -> Target:
    return make_target(
        "staged_numpy_cast_wraps", StagedWriteTensor=StagedWriteTensor, FusedStagedWriter=FusedStagedWriter
    )
