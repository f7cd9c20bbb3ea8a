"""The CPU-platform variant returns a clone of a host tensor before validating anything.

What changed: ``h2d.async_tensor_h2d_cpu`` ran ``_prepare`` (every argument validated) for
every call. The change adds a fast path in front: a host tensor with no ``out`` and no
dtype change is returned as ``data.detach().clone(memory_format=torch.contiguous_format)``,
"the CPU worker's common case: a detached contiguous copy is all it needs".

Why an engineer writes it: the clone has exactly the result's properties (a fresh,
contiguous, detached copy of the same dtype), and the fast path skips the validation
that is pure overhead on a CPU worker.

Promise broken: ``async_tensor_h2d_cpu``'s docstring ("same signature, dtype resolution,
validation and exceptions as ``async_tensor_h2d``; the target must be the host"; Raises:
"everything ``async_tensor_h2d`` raises, and ValueError for a non-CPU target") and contract
"cpu-path" (the variant and the main function raise the same exception type). With a
tensor as data, no target (``TypeError``), a non-host device (``device="cuda"``, ``"meta"``,
``"cpu:1"``: ValueError), a bool device (TypeError), or a tensor on the meta device as data
(ValueError) are all accepted.

Smallest input: ``async_tensor_h2d_cpu(torch.tensor([1]))`` (no ``device``, no ``out``):
reference ``TypeError: a target is required``; bug returns ``tensor([1])``.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target


def async_tensor_h2d_cpu(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    # BUG: fast path before validation: a host tensor needs only a detached contiguous copy
    if out is None and isinstance(data, torch.Tensor) and (dtype is None or dtype == data.dtype):
        return data.detach().clone(memory_format=torch.contiguous_format)
    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)  # noqa: F821
    if out is not None:
        return out.copy_(source)
    return _stage(source, dtype, pin=False)  # noqa: F821


def target() -> Target:
    return fork_target(
        "b11_cpu_variant_tensor_fast_path",
        fork("b11", h2d={"async_tensor_h2d_cpu": async_tensor_h2d_cpu}),
        main=False,
    )
