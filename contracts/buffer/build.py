"""Building a ``CpuGpuBuffer`` from a spec (the constructor's keyword arguments, as :func:`strategies.buffer_specs`
draws them), writing it as a runnable call, the documented wait, and reading a side's raw bytes."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from h2d_contracts.harness.target import Target
from h2d_contracts.harness.violations import NotApplicable, fail
from h2d_contracts.strategies.describe import literal


def _construct(target: Target, spec: dict[str, Any], device: torch.device) -> Any:
    target.require("buffer", "buffer")
    return target.buffer_cls(
        *spec["size"],
        dtype=spec["dtype"],
        device=device,
        pin_memory=spec["pin_memory"],
        with_numpy=spec["with_numpy"],
    )  # type: ignore[misc]


def make_buffer(target: Target, spec: dict[str, Any], device: torch.device) -> Any:
    """Build ``target.buffer_cls(*spec['size'], dtype=..., device=..., pin_memory=..., with_numpy=...)`` for a valid spec.

    ``pin_memory`` is always passed (vLLM 0.10-0.21 have no default for it). A valid spec
    that raises is a ``buffer`` violation (e.g. ``pin_memory=True`` on a host without pinned
    memory, where the documented behaviour is a pageable ``.cpu``).
    """
    __tracebackhide__ = True
    try:
        return _construct(target, spec, device)
    except NotApplicable:
        raise
    except Exception as exc:  # noqa: BLE001 - report what a valid construction raised
        pinned = (
            ""
            if target.pin_memory_available()
            else " (pinned memory is unavailable here: pin_memory=True must fall back to pageable)"
        )
        fail(
            "buffer",
            f"a valid CpuGpuBuffer construction raised{pinned if spec['pin_memory'] else ''}",
            got=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
            expected="a buffer",
            call=repr_spec(spec, device, target.buffer_name),
        )


def wait(buffer: Any) -> None:
    """The documented wait before reading copied values: synchronize the current stream of ``.gpu``'s device."""
    if buffer.gpu.device.type == "cuda":
        torch.cuda.current_stream(buffer.gpu.device).synchronize()


def repr_spec(spec: dict[str, Any], device: torch.device, name: str = "CpuGpuBuffer") -> str:
    """``CpuGpuBuffer(...)`` (``name``: the target's class name) with every constructor argument of ``spec`` (as
    :func:`strategies.buffer_specs` gives), runnable."""
    size = ", ".join(map(str, spec["size"]))
    return f"{name}({size}, dtype={spec['dtype']}, device=torch.device('{device}'), pin_memory={spec['pin_memory']}, with_numpy={spec.get('with_numpy', True)})"


def _bytes(t: torch.Tensor) -> np.ndarray:
    """Raw bytes of a tensor's elements, shape ``(rows, row_bytes)`` (any device)."""
    host = t.detach().cpu().contiguous()
    rows = host.shape[0] if host.dim() else 1
    # .copy(): a snapshot, not a view of live host memory (a view would compare rows with themselves).
    return host.view(torch.uint8).reshape(rows, -1).numpy().copy() if host.numel() else np.zeros((rows, 0), np.uint8)


def host_aliased(buf: Any) -> bool:
    """Whether ``buf.gpu`` is on the host and shares memory with ``buf.cpu`` (one memory for both sides)."""
    cpu, gpu = buf.cpu, buf.gpu
    if gpu.device.type != "cpu" or not cpu.numel():
        return False
    return bool(cpu.untyped_storage().data_ptr() == gpu.untyped_storage().data_ptr())


def constructor_call(target: Target, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The buffer constructor call as source: ``CpuGpuBuffer(4, dtype=torch.int32, ...)`` (for messages and reproductions)."""
    rendered = [*map(literal, args), *(f"{k}={literal(v)}" for k, v in kwargs.items())]
    return f"{target.buffer_name}(" + ", ".join(rendered) + ")"
