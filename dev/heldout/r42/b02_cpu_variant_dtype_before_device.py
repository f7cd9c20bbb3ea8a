"""b02 (CPU): the CPU-platform variant takes ``(data, dtype, device, out)``: a positional device lands in ``dtype``.

Where: h2d_impl/h2d.py, ``async_tensor_h2d_cpu`` (its signature).
Change: ``def async_tensor_h2d_cpu(data, device=None, dtype=None, out=None)`` ->
    ``def async_tensor_h2d_cpu(data, dtype=None, device=None, out=None)`` (body unchanged,
    it passes the names on by keyword).
Why plausible: on CPU workers the variant is written next to ``torch.tensor(data, dtype=None,
    device=None)``; a developer "aligning it with torch's factory order" swaps the two
    parameters. Every keyword caller still works, and the tests call it by keyword.
Promise broken: async_tensor_h2d_cpu's docstring: "same signature, dtype resolution, validation
    and exceptions as :func:`async_tensor_h2d`" (vLLM's ``(data, device=None, dtype=None,
    out=None)``); docs/reference.md, calling contexts: "arguments by position
    (``async_tensor_h2d(data, "cuda", torch.int32)``): the same as by keyword".
Smallest input:
    async_tensor_h2d_cpu([1, 2], "cpu")
Reference: ``tensor([1, 2])``. Bug: ``TypeError: dtype must be a torch.dtype or None, got 'cpu'``
    (and ``async_tensor_h2d_cpu(x, "cpu", torch.int32)`` is refused the same way).
"""

from __future__ import annotations

from typing import Any

import torch

from h2d_contracts.contracts import Target

from ._common import fork, fork_target_full


def async_tensor_h2d_cpu(
    data: Any,
    dtype: torch.dtype | None = None,  # BUG: dtype before device (torch.tensor's order), not vLLM's
    device: torch.device | str | int | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    source, dtype, _ = _prepare(data, device, dtype, out, cpu_only=True)  # noqa: F821 (the fork's)
    if out is not None:
        return out.copy_(source)
    return _stage(source, dtype, pin=False)  # noqa: F821


def target() -> Target:
    return fork_target_full(
        "b02_cpu_variant_dtype_before_device", fork("b02", h2d={"async_tensor_h2d_cpu": async_tensor_h2d_cpu})
    )
