"""b09 (CPU): the CPU-platform variant drops ``device`` when ``out`` is given: a device that disagrees with ``out``, or is no device at all, is accepted.

Where: ``h2d_impl/h2d.py::async_tensor_h2d_cpu`` (calls with ``out``).

Change: on the CPU platform ``out`` is always host memory, so ``device`` is made redundant there
("shared model code passes ``device=self.device``, which on a CPU worker may still say 'cuda' from
the config; ``out`` decides")::

    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)                       # reference

    source, dtype, _ = _prepare(data, None if out is not None else device, dtype, out, cpu_only=True)  # bug

``device`` is then neither validated nor compared with ``out.device``: ``device='cuda'`` on a host
without CUDA, ``device='meta'``, ``device='cpu:1'``, a misspelt ``'cpy'``, even ``device=['cpu']``,
all write ``out`` and return it, where the main function (and the reference variant) raise. The
variant and the main function no longer agree on the same call.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d``: "device: ... if both are given they must agree"
and "Raises: ValueError: ... ``device`` invalid, unavailable or disagreeing with ``out.device``";
``async_tensor_h2d_cpu``: "same signature, dtype resolution, validation and exceptions as
:func:`async_tensor_h2d`"; docs/contracts.md, bad-input: kind ``device-out-disagree`` must raise
``ValueError``.

Smallest input: ``async_tensor_h2d_cpu([1], device='meta', out=torch.zeros(1, dtype=torch.int64))``.
Reference: ``ValueError: device=meta is not supported: the target must be 'cpu' or a CUDA device``;
``out`` untouched. Bug: returns ``out``, now ``[1]``.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with one argument changed; every other name resolves in the forked module.
# ruff: noqa: F821


def async_tensor_h2d_cpu(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    # host memory is the only target here: with out given, out decides (device may be a shared config's)
    source, dtype, _ = _prepare(data, None if out is not None else device, dtype, out, cpu_only=True)  # BUG (r55 b09)
    if out is not None:
        return out.copy_(source)
    return _stage(source, dtype, pin=False)


def target() -> Target:
    f = fork("b09", h2d={"async_tensor_h2d_cpu": async_tensor_h2d_cpu})
    return make_target(
        "b09_cpu_variant_device_ignored_with_out",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b09"),
    )
