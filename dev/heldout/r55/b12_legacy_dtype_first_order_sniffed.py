"""b12 (CPU): ``async_tensor_h2d`` sniffs vLLM's old positional order ``(data, dtype, target_device, pin_memory)`` and rearranges it.

Where: ``h2d_impl/h2d.py::async_tensor_h2d`` (the public entry; calls whose second argument is a
``torch.dtype``).

Change: a compatibility shim for callers written against vLLM's pre-0.10 helper, whose signature
was ``async_tensor_h2d(data, dtype, target_device, pin_memory)`` ("a dtype is never a device, so a
dtype in the device slot can only be the old order")::

    return _async_h2d(data, device, dtype, out)                               # reference

    if isinstance(device, torch.dtype):                                       # bug
        device, dtype, out = dtype, device, None     # the old 4th argument was pin_memory
    return _async_h2d(data, device, dtype, out)

Calls in the old order now return a tensor where the reference raises ``TypeError``. The shim
also fires for a call in the new order with a slip: ``async_tensor_h2d(ids, torch.int32, "cpu", out)``
(the dtype passed positionally where the device goes) returns a fresh tensor and silently drops
``out``, which stays unwritten, instead of refusing the call.

Promise broken: docs/reference.md, Calling contexts: "arguments by position
(``async_tensor_h2d(data, "cuda", torch.int32)``): the same as by keyword; the signature is vLLM's,
``(data, device=None, dtype=None, out=None)``"; h2d_impl/h2d.py ``async_tensor_h2d``: "device: target
device (...)", "Raises: TypeError: ... ``dtype`` not a supported torch dtype"; docs/contracts.md,
bad-input: ``dtype-not-a-dtype`` and ``device-wrong-type`` must raise ``TypeError``.

Smallest input: ``async_tensor_h2d([1], torch.int32, 'cpu', True)``.
Reference: ``TypeError: dtype must be a torch.dtype or None, got 'cpu' (pass a torch.dtype such as
torch.int32, not a numpy dtype, type or string)``. Bug: ``tensor([1], dtype=torch.int32)``.
"""

from __future__ import annotations

from typing import Any

import torch
from plumbing import bu_fork, fork, make_target

from h2d_contracts.contracts import Target

# The reference function with the shim added; every other name resolves in the forked module.
# ruff: noqa: F821


def async_tensor_h2d(
    data: Any,
    device: torch.device | str | int | None = None,
    dtype: torch.dtype | None = None,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    # vLLM's old helper was (data, dtype, target_device, pin_memory): a dtype is never a device
    if isinstance(device, torch.dtype):  # BUG (r55 b12): arguments rearranged by their types; out dropped
        device, dtype, out = dtype, device, None
    return _async_h2d(data, device, dtype, out)


def target() -> Target:
    f = fork("b12", h2d={"async_tensor_h2d": async_tensor_h2d})
    return make_target(
        "b12_legacy_dtype_first_order_sniffed",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_utils=bu_fork("b12"),
    )
