"""Targets for functions of vLLM's older signatures (and forks that kept them).

- :func:`adapt_device_dtype`: ``fn(data, device, dtype=None)`` (vLLM 0.24-0.29);
- :func:`adapt_pin_memory`: ``fn(data, dtype, target_device, pin_memory)`` (vLLM <= 0.21).

An adapter only maps the protocol's keyword call onto the function's positions: it never
invents a default or a message, so whatever the function raises or returns is its own.
Their host path (``t.to(device)``) stands in for a device, so they declare
``host_copy=False`` (aliasing on the host is not applicable).
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from . import Target, torch_pin_memory_available

__all__ = ["adapt_device_dtype", "adapt_pin_memory"]


def adapt_device_dtype(
    fn: Callable[..., torch.Tensor],
    *,
    name: str,
    version: str = "unknown",
    buffer_cls: type | None = None,
    cpu_variant: Callable[..., torch.Tensor] | None = None,
    pin_memory_available: Callable[[], bool] = torch_pin_memory_available,
    notes: str = "",
) -> Target:
    """A Target for ``fn(data, device, dtype=None)`` (vLLM 0.24-0.29 and forks of them).

    ``device`` and ``dtype`` are passed by keyword exactly when the contract passes them,
    so a call without ``device`` gets Python's own ``TypeError`` for the missing argument.
    No "out" capability: the out contracts report "not applicable". ``cpu_variant``, if
    given, has the same signature.
    """
    caps = {"cuda"} | ({"buffer"} if buffer_cls is not None else set()) | ({"cpu-variant"} if cpu_variant is not None else set())
    return Target(
        name=name,
        async_tensor_h2d=fn,  # called with the protocol's keywords, which are its parameter names
        buffer_cls=buffer_cls,
        cpu_variant=cpu_variant,
        capabilities=frozenset(caps),
        pin_memory_available=pin_memory_available,
        version=version,
        notes=notes or "signature (data, device, dtype=None): device and dtype passed through by keyword; no out",
        host_copy=False,
    )


def adapt_pin_memory(
    fn: Callable[..., torch.Tensor],
    *,
    name: str,
    pin_memory: bool,
    version: str = "unknown",
    buffer_cls: type | None = None,
    pin_memory_available: Callable[[], bool] | None = None,
    notes: str = "",
    arg_names: dict[str, str] | None = None,
) -> Target:
    """A Target for ``fn(data, dtype, target_device, pin_memory)`` (vLLM <= 0.21 and forks of them).

    The protocol's call ``(data, device=..., dtype=...)`` becomes
    ``fn(data, dtype, device, pin_memory)`` (positional: 0.21 renamed ``target_device``
    to ``device``), with ``dtype=None`` when not given, and ``pin_memory`` the value
    vLLM's call sites pass on this machine. Without ``device``, ``fn(data, dtype)``: the
    function raises Python's own ``TypeError`` for its missing argument (the adapter
    never invents a device or a message). Any other keyword (``out``) goes to ``fn``
    unchanged. No "out" capability. ``arg_names`` maps the protocol's ``device`` to the
    function's own name for it (``target_device``), which a refusal may name.
    """

    def call(data: Any, **kwargs: Any) -> torch.Tensor:
        # Positions as the function declares them; an argument the contract did not pass is not
        # passed here either, so the function itself answers (Python's TypeError for a missing
        # positional, naming its own parameter), never a message of the adapter's.
        args = [data, kwargs.pop("dtype", None)]
        if "device" in kwargs:
            args += [kwargs.pop("device"), pin_memory]
        return fn(*args, **kwargs)

    call.__wrapped__ = fn  # type: ignore[attr-defined]
    caps = {"cuda"} | ({"buffer"} if buffer_cls is not None else set())
    return Target(
        name=name,
        async_tensor_h2d=call,
        buffer_cls=buffer_cls,
        capabilities=frozenset(caps),
        pin_memory_available=pin_memory_available or (lambda: pin_memory),
        version=version,
        notes=notes or f"signature (data, dtype, target_device, pin_memory): called as fn(data, dtype, device, {pin_memory}); no out",
        arg_names=arg_names if arg_names is not None else {"device": "target_device"},
        host_copy=False,
    )


