"""b08 (CPU): the CPU-platform variant's ``device`` given the default ``"cpu"`` ("the variant always targets the host").

Where: ``h2d_impl/h2d.py::async_tensor_h2d_cpu``, its signature.

Change (one default)::

    device: torch.device | str | int | None = None,    # reference: None, then ``out`` is required
    device: torch.device | str | int | None = "cpu",   # bug

A call with neither ``device`` nor ``out`` now succeeds (a new host tensor) where the
variant must refuse it like the main function; the body is unchanged.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d_cpu`` docstring: "same signature, dtype
resolution, validation and exceptions as :func:`async_tensor_h2d`" and "device: ``"cpu"``,
``torch.device("cpu")`` or None (then ``out`` is required)"; docs/contracts.md, target:
"Neither `device` nor `out` given raises `TypeError` naming an argument", run against the
variant too (cpu-path: "`test_cpu_variant[<property>]` runs every property of values,
dtype, out, target, ... against the variant as an entry point of its own").

Smallest input: ``async_tensor_h2d_cpu([1])``.
Reference: ``TypeError: a target is required: pass device=... or out=... (got neither)``.
Bug: ``tensor([1])``.
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target
from plumbing import bu_fork, fork, make_target

def async_tensor_h2d_cpu(
    data: Any,
    device: torch.device | str | int | None = "cpu",  # BUG (r48 b08): "the variant always targets the host"
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """CPU-platform variant of :func:`async_tensor_h2d` (host memory is the "device").

    Models the variant vLLM installs on CPU workers, where there is no pinned memory
    and no stream: same signature, dtype resolution, validation and exceptions as
    :func:`async_tensor_h2d`; the target must be the host.

    Args:
        data, dtype, out: as for :func:`async_tensor_h2d`; ``out`` must be a CPU tensor.
        device: ``"cpu"``, ``torch.device("cpu")`` or None (then ``out`` is required).

    Returns:
        ``out`` itself, or a new contiguous CPU tensor that never aliases ``data``.

    Raises:
        Everything :func:`async_tensor_h2d` raises, and ValueError for a non-CPU target.
    """
    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)
    if out is not None:
        return out.copy_(source)
    return _stage(source, dtype, pin=False)


def target() -> Target:
    f = fork("b08", h2d={"async_tensor_h2d_cpu": async_tensor_h2d_cpu})
    return make_target(
        "b08_cpu_variant_device_default",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b08"),
    )
