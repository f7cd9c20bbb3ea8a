"""Targets for functions of vLLM's older signatures (and forks that kept them).

- :func:`adapt_device_dtype`: ``fn(data, device, dtype=None)`` (vLLM 0.24-0.29);
- :func:`adapt_pin_memory`: ``fn(data, dtype, target_device, pin_memory)`` (vLLM <= 0.23;
  0.21 renamed ``target_device`` to ``device``);
- :func:`keyword_call`: the mapping both use, for any function whose parameters are the
  protocol's under other names.

An adapter only maps the protocol's keyword call onto the function's own parameter names:
it never invents a default or a message, so whatever the function raises or returns is its
own (a call without an argument the function requires gets Python's ``TypeError`` naming
the function's parameter). Their host path (``t.to(device)``) stands in for a device, so
they declare ``host_copy=False`` (aliasing on the host is not applicable).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, cast

import torch

from . import Target, torch_pin_memory_available

__all__ = ["adapt_device_dtype", "adapt_pin_memory", "keyword_call"]


def keyword_call(
    fn: Callable[..., torch.Tensor], own_names: Mapping[str, str], extra: Mapping[str, Any]
) -> Callable[..., torch.Tensor]:
    """``fn`` called the protocol's way: ``call(data, device=..., dtype=..., out=...)``.

    Args:
        fn: the function under test.
        own_names: protocol name -> the function's own parameter name (``{"device": "target_device"}``).
        extra: keywords always passed, as the engine's call sites pass them (``{"pin_memory": False}``).

    Every protocol argument the contract passes goes to ``fn`` by keyword under its own name;
    one it does not pass is not passed (no default is invented). The wrapper keeps
    ``fn`` as ``__wrapped__``.
    """

    @functools.wraps(fn)
    def call(data: Any, **kwargs: Any) -> torch.Tensor:
        mapped = {own_names.get(k, k): v for k, v in kwargs.items()}
        return fn(data, **mapped, **extra)

    return call


def adapt_device_dtype(
    fn: Callable[..., torch.Tensor],
    *,
    name: str,
    version: str = "unknown",
    buffer_cls: type | None = None,
    cpu_variant: Callable[..., torch.Tensor] | None = None,
    pin_memory_available: Callable[[], bool] = torch_pin_memory_available,
    notes: str = "",
    inputs: frozenset[str] | None = None,
) -> Target:
    """A Target for ``fn(data, device, dtype=None)`` (vLLM 0.24-0.29 and forks of them).

    ``device`` and ``dtype`` are passed by keyword exactly when the contract passes them,
    so a call without ``device`` gets Python's own ``TypeError`` for the missing argument.
    No "out" capability: the out contracts report "not applicable". ``cpu_variant``, if
    given, has the same signature. ``inputs``: the declared input domain (default: every kind).
    """
    caps = (
        {"cuda"}
        | ({"buffer"} if buffer_cls is not None else set())
        | ({"cpu-variant"} if cpu_variant is not None else set())
    )
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
        requires=frozenset({"device"}),
        positional=("device", "dtype"),  # fn(data, device, dtype=None) itself
        **cast("dict[str, Any]", {"inputs": inputs} if inputs is not None else {}),
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
    inputs: frozenset[str] | None = None,
) -> Target:
    """A Target for ``fn(data, dtype, target_device, pin_memory)`` (vLLM <= 0.23 and forks of them).

    The protocol's call ``(data, device=..., dtype=...)`` becomes
    ``fn(data, dtype=..., target_device=..., pin_memory=pin_memory)`` (``device=`` where
    the function names it so, as 0.21-0.23 do), ``pin_memory`` being the value vLLM's call
    sites pass on this machine. ``dtype`` and ``device`` are required (declared in
    :attr:`Target.requires`: contracts draw valid calls with both). No "out" capability.
    """
    params = tuple(inspect.signature(fn).parameters)
    own = "target_device" if "target_device" in params else "device"
    caps = {"cuda"} | ({"buffer"} if buffer_cls is not None else set())
    return Target(
        name=name,
        async_tensor_h2d=keyword_call(fn, {"device": own}, {"pin_memory": pin_memory}),
        buffer_cls=buffer_cls,
        capabilities=frozenset(caps),
        pin_memory_available=pin_memory_available or (lambda: pin_memory),
        version=version,
        notes=notes
        or f"signature (data, dtype, {own}, pin_memory): called as fn(data, dtype=..., {own}=..., pin_memory={pin_memory}); no out",
        arg_names={"device": own} if own != "device" else {},
        positional=(),  # keyword_call takes keywords only
        host_copy=False,
        requires=frozenset({"dtype", "device"}),
        **cast("dict[str, Any]", {"inputs": inputs} if inputs is not None else {}),
    )
