"""b04 - the CPU-platform variant runs its whole body under ``torch.inference_mode()``.

Where: ``h2d.async_tensor_h2d_cpu``.

Change (old -> new)::

    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)
    if out is not None:
        return out.copy_(source)
    return _stage(source, dtype, pin=False)
    ->
    with torch.inference_mode():  # BUG: validation and copy now run inside inference mode
        source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)
        if out is not None:
            return out.copy_(source)
        return _stage(source, dtype, pin=False)

Why an engineer writes it: vLLM's CPU workers run their model runner under inference mode
anyway; wrapping the variant (the decorator ``@torch.inference_mode()`` is the idiom) skips
autograd's version-counter and view bookkeeping on every host copy, a measurable saving on
CPU platforms where every step is host work. The values it returns are the same.

Promise broken: docs/contracts.md "bad-input" (kind ``out-inference-tensor``: an inference
``out`` outside inference mode must raise ``ValueError`` naming ``out`` and stay untouched;
"cpu-path" runs every bad-input property against the variant) and docs/reference.md "What it
promises" (``out``: "not an inference tensor outside inference mode"). ``_check_out`` reads
``torch.is_inference_mode_enabled()``, which the wrapper has just turned on, so the refusal
never fires. (Results made without ``out`` are inference tensors too, even outside the mode.)

Smallest input (CPU)::

    with torch.inference_mode():
        o = torch.zeros(1)
    async_tensor_h2d_cpu([5.0], out=o)          # outside inference mode

Reference: ``ValueError: out is an inference tensor ...``; ``o`` stays ``[0.]``.
Bug: returns ``o`` holding ``[5.]``.
"""

from __future__ import annotations

from typing import Any

import torch
from h2d_contracts.contracts import Target
from plumbing import fork, fork_target_full


def async_tensor_h2d_cpu(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """CPU-platform variant of :func:`async_tensor_h2d` (host memory is the "device")."""
    with torch.inference_mode():  # BUG: CPU workers run under inference mode anyway
        source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)  # noqa: F821
        if out is not None:
            return out.copy_(source)
        return _stage(source, dtype, pin=False)  # noqa: F821


def target() -> Target:
    return fork_target_full(
        "b04_cpu_variant_under_inference_mode", fork("b04", h2d={"async_tensor_h2d_cpu": async_tensor_h2d_cpu})
    )
