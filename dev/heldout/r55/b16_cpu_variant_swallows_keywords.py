"""b16 (CPU): the CPU-platform variant takes ``**kwargs`` so that CUDA-only keywords pass: a misspelt keyword is swallowed too.

Where: ``h2d_impl/h2d.py::async_tensor_h2d_cpu`` (its signature).

Change: the variant absorbs the extra keywords callers written for GPU helpers pass
(``non_blocking=True``, ``pin_memory=...``, as ``Tensor.to`` takes them), "so that one call site
serves both platforms"::

    def async_tensor_h2d_cpu(data, device=None, dtype=None, out=None):                    # reference

    def async_tensor_h2d_cpu(data, device=None, dtype=None, out=None, **_cuda_only):      # bug

Every keyword now binds: ``dtpye=torch.int32`` (a typo) is dropped and the result is int64, the
data's own dtype; ``ouT=buf`` leaves ``buf`` unwritten and returns a fresh tensor (with ``device``
given); ``target_device='cpu'`` (vLLM's old name) with no ``device`` raises the no-target error
instead of naming the keyword. The variant no longer has the main function's signature, which
raises ``TypeError: ... got an unexpected keyword argument`` for each of these.

Promise broken: h2d_impl/h2d.py ``async_tensor_h2d_cpu``: "same signature, dtype resolution,
validation and exceptions as :func:`async_tensor_h2d`"; docs/reference.md: "``async_tensor_h2d_cpu``
(the CPU-platform variant: same signature and errors, host targets only)"; docs/contracts.md,
cpu-path: "The CPU-platform variant and the main function, both aimed at the host, agree: ... or both
raise the same exception type".

Smallest input: ``async_tensor_h2d_cpu([1], device='cpu', dtpye=torch.int32)``.
Reference: ``TypeError: async_tensor_h2d_cpu() got an unexpected keyword argument 'dtpye'``.
Bug: ``tensor([1])`` (int64).
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with its signature widened; every other name resolves in the forked module.
# ruff: noqa: F821


def async_tensor_h2d_cpu(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
    **_cuda_only: Any,  # BUG (r55 b16): non_blocking=, pin_memory= ... and any misspelt keyword, ignored
) -> torch.Tensor:
    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)
    if out is not None:
        return out.copy_(source)
    return _stage(source, dtype, pin=False)


def target() -> Target:
    f = fork("b16", h2d={"async_tensor_h2d_cpu": async_tensor_h2d_cpu})
    return make_target(
        "b16_cpu_variant_swallows_keywords",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b16"),
    )
