"""b04 (CPU-visible, h2d.py ``_stage``): host results are allocated with inference mode switched off.

What changed: the result tensor of a host-target call is allocated inside
``with torch.inference_mode(False):`` (the pattern of ``StagingPool._alloc``).

Why an engineer would write it: the staging pool's own comment says a tensor made under
the caller's ``torch.inference_mode()`` "would be an inference tensor, and the next call
outside the mode could not write it"; an engineer applying that "fix" everywhere wraps
``_stage`` too, thinking a result should never be an inference tensor.

Promise broken: docs/reference.md "Calling contexts": "``torch.inference_mode()``: the same
values; results made without ``out`` are inference tensors (made inside the mode)". With
the bug a result made inside the mode is a normal tensor, so e.g. an engine that relies
on inference tensors being refused by autograd (or that checks ``is_inference()``) sees a
tensor that silently joins autograd outside the mode. Affects the CPU-platform variant too.

Smallest input: ``with torch.inference_mode(): r = async_tensor_h2d([1], device="cpu")``,
then ``r.is_inference()``.
Reference: ``True``. Bug: ``False``.
"""

from __future__ import annotations

import torch
from h2d_contracts.contracts import Target

from ._common import Fork, buffer_utils_ns, fork, make_target


def _stage(source: torch.Tensor, dtype: torch.dtype, pin: bool) -> torch.Tensor:
    """A fresh contiguous host copy of ``source`` converted to ``dtype`` (pinned if ``pin``)."""
    with torch.inference_mode(False):  # BUG: the caller's new tensor is never an inference tensor
        staging = torch.empty(source.shape, dtype=dtype, device="cpu", pin_memory=pin)
    return _host_copy(staging, source)  # noqa: F821


def _fork() -> Fork:
    return fork("b04", h2d={"_stage": _stage})


def target() -> Target:
    f = _fork()
    return make_target(
        "b04_results_not_inference",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=buffer_utils_ns(),
    )
