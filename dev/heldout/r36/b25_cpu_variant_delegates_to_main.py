"""The CPU-platform variant becomes a thin wrapper of the main function.

What changed: ``h2d.async_tensor_h2d_cpu`` validated with ``cpu_only=True`` (a non-host
target is refused) and copied on the host. The change makes it call
``async_tensor_h2d(data, device, dtype, out)``: "the main function's host path already makes
the same fresh copy with the same validation; one code path instead of two".

Why an engineer writes it: on a CPU worker (no CUDA) the two are indistinguishable, every
error of the main path is the variant's too, and the duplicated body goes away.

Promise broken: ``async_tensor_h2d_cpu``'s docstring ("the target must be the host";
Raises: "ValueError for a non-CPU target"; "``out`` must be a CPU tensor") and
docs/reference.md ("``async_tensor_h2d_cpu`` (the CPU-platform variant: same signature and
errors, host targets only)"). On a machine with CUDA the variant now uploads to the GPU:
``device="cuda"``, an int index or an ``out`` on a GPU is honoured instead of refused (GPU
only: without CUDA the main path refuses these with the same ValueError).

Smallest input (CUDA): ``async_tensor_h2d_cpu([1], device="cuda")``: reference
``ValueError: the CPU-platform variant only targets host memory``; bug returns a CUDA tensor.
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
    # BUG: one code path: the main function (was: _prepare(..., cpu_only=True), then a host copy)
    return async_tensor_h2d(data, device, dtype, out)  # noqa: F821


def target() -> Target:
    return fork_target(
        "b25_cpu_variant_delegates_to_main",
        fork("b25", h2d={"async_tensor_h2d_cpu": async_tensor_h2d_cpu}),
        main=False,
    )
