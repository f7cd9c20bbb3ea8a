"""A worked example of a user target (``--h2d-impl examples.fork_adapter:target``).

It adapts an implementation with vLLM's *older* signature
``async_tensor_h2d(data, dtype, target_device, pin_memory)`` (no ``out``) to the
kit's protocol. The function below stands in for a fork's code; replace it with an
import of yours.
"""

from __future__ import annotations

import torch

from h2d_contracts.contracts import Target


def fork_async_tensor_h2d(data, dtype, target_device, pin_memory):
    """A fork's utility in the old vLLM shape: list -> pinned tensor -> device."""
    if isinstance(data, torch.Tensor):
        t = data.to(dtype or data.dtype).pin_memory() if pin_memory else data.to(dtype or data.dtype, copy=True)
    else:
        t = torch.tensor(data, dtype=dtype, pin_memory=pin_memory, device="cpu")
    return t.to(device=target_device, non_blocking=True)


def target() -> Target:
    """The factory ``--h2d-impl`` calls: map the protocol's keywords onto the old signature."""

    def call(data, device=None, dtype=None, out=None):
        if out is not None:
            raise TypeError("this target has no out= parameter")  # never reached: no "out" capability
        pin = torch.cuda.is_available()
        return fork_async_tensor_h2d(data, dtype, device, pin)

    return Target(
        name="example-fork",
        async_tensor_h2d=call,
        capabilities=frozenset({"cuda"}),  # no out, no buffer class, no CPU variant
        version="example",
        notes="old signature (data, dtype, target_device, pin_memory), adapted",
    )
