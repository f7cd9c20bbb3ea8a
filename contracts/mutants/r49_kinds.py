"""Mutants for the kinds the GPU halves of held-out rounds r48 and r49 found missing (one H200, the kit at 9cf5e95).

Both rounds' misses were bugs on the general path of a call that a plain ``device=`` call no longer reaches (it takes
the hot path): a device tensor refused only when ``out`` is named (r49 b04 as seen from the general path), and the
general path's staging racing between threads (r48 b16, b23). Each mutant is the reference with one such change; it
dies on the host too, where the contract check added for the kind runs in CI.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.h2d_impl import h2d as R

from ..targets import Target
from .base import mutant, reference_target
from .reliability import scratch_staged


@mutant(killed_by=("bad-input",), by=("prop_bad_input_kinds_table",))
def device_data_fetched_without_out() -> Target:
    """A tensor ``data`` on a device is brought to the host first when no ``out`` is named ("``.cpu()`` is free for
    host data"): meta data raises torch's ``NotImplementedError``, and CUDA data is copied back to the host and out
    again, where the reference raises ``ValueError`` naming ``data`` (the rows with ``out`` still refuse it)."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is None and isinstance(data, torch.Tensor) and data.device.type != "cpu":
            data = data.cpu()
        return R.async_tensor_h2d(data, device, dtype, out)

    return reference_target("device_data_fetched_without_out", fn)


@mutant(killed_by=("concurrency",), by=("prop_concurrency",))
def out_route_shared_scratch() -> Target:
    """A call that names ``out`` stages through one module-level scratch tensor with no lock ("an out call is rare: no
    pool for it"); a plain call keeps the reference's staging. Threads calling with ``out`` read each other's data."""

    def fn(data: Any, device: Any = None, dtype: Any = None, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is None:
            return R.async_tensor_h2d(data, device, dtype, out)
        return scratch_staged(data, device, dtype, out)

    return reference_target("out_route_shared_scratch", fn)
