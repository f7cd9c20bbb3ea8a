"""b04 (CPU): a range check extended to float16: finite values past 65,504 refused instead of becoming inf.

Where: ``h2d_impl/_host.py::check_representable`` (every route calls it through ``h2d._prepare``).

Change (one block added at the top, "overflow is as silent as integer wrapping")::

    if dtype is torch.float16 and source.dtype is not torch.float16 and not source.is_complex():
        wide = source.to(torch.float64).numpy()
        if bool((np.isfinite(wide) & (np.abs(wide) > torch.finfo(torch.float16).max)).any()):
            raise ValueError(f"data has values outside the range of {dtype}: they would become inf")

Written by analogy with the integer rule, it refuses what the reference documents as valid:
a float (or integer) beyond float16's largest finite value converts as torch converts it, to
inf (and values up to 65,519.99 round down to 65,504, refused here too). Integer targets,
other float dtypes and data already float16 are unchanged; NaN and inf sources still pass.

Promise broken: h2d_impl/_host.py ``check_representable`` docstring: "anything -> bool, and
conversions into floating dtypes follow torch (nonzero is True; float narrowing rounds,
overflow gives inf)"; README, values: "result equals `data` converted to the resolved dtype
... infinities and extremes in every kind".

Smallest input: ``async_tensor_h2d([70000.0], dtype=torch.float16, device='cpu')``.
Reference: ``tensor([inf], dtype=torch.float16)``. Bug: ``ValueError: data has values outside
the range of torch.float16: they would become inf``.
"""

from __future__ import annotations

import numpy as np
import torch
from plumbing import Raw, bu_fork, fork, make_target

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import _host

_REF = _host.check_representable


def check_representable(source: torch.Tensor, dtype: torch.dtype) -> None:
    # BUG (r51 b04): float16 overflow refused like an integer out of range
    if dtype is torch.float16 and source.dtype is not torch.float16 and not source.is_complex() and source.numel():
        wide = source.to(torch.float64).numpy()
        if bool((np.isfinite(wide) & (np.abs(wide) > torch.finfo(torch.float16).max)).any()):
            raise ValueError(f"data has values outside the range of {dtype}: they would become inf")
    return _REF(source, dtype)  # the reference check, unchanged


def target() -> Target:
    # Raw: kept with this module's globals (it defers to the reference function); h2d's import is re-pointed to it
    f = fork("b04", _host={"check_representable": Raw(check_representable)})
    return make_target(
        "b04_half_overflow_refused",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b04"),
    )
