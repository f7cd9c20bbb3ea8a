"""A built buffer: shapes, dtypes, devices, zero-initialised (after dirty memory was freed), pinned iff asked and
available, ``.np`` a view of ``.cpu``; from a spec and as a user writes the constructor call."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from h2d_contracts.harness import contexts
from h2d_contracts.harness.calling import synchronize
from h2d_contracts.harness.checks import check
from h2d_contracts.harness.target import Target, torch_pin_memory_available
from h2d_contracts.harness.violations import fail

from .build import _bytes, constructor_call, make_buffer, repr_spec


def _dirty_freed_memory(spec: dict[str, Any], device: torch.device) -> None:
    """Fill and free blocks of the buffer's sizes first, so an allocation the target does not zero hands back non-zero bytes.

    Allocators reuse what was just freed (glibc for pageable memory, torch's caching host and
    device allocators): a buffer made with ``torch.empty`` then holds these bytes, in a long
    test process and in a fresh one alike (a reproduction runs in a fresh one).
    """
    nbytes = math.prod(spec["size"]) * spec["dtype"].itemsize
    if not nbytes:
        return
    pinned = bool(spec["pin_memory"]) and torch_pin_memory_available()
    blocks = [torch.empty(nbytes, dtype=torch.uint8, pin_memory=pinned)]
    if device.type != "cpu":
        blocks.append(torch.empty(nbytes, dtype=torch.uint8, device=device))
    for block in blocks:
        block.fill_(0xA5)
    synchronize()
    del blocks


@check("buffer")
def check_buffer_init(target: Target, spec: dict[str, Any], device: torch.device) -> Any:
    """buffer: shapes, dtypes, devices, zero-initialised (after dirty memory was freed), pinned iff asked and available, ``.np`` aliases ``.cpu``."""
    _dirty_freed_memory(spec, device)
    return _judge_built(
        target, make_buffer(target, spec, device), spec, device, repr_spec(spec, device, target.buffer_name)
    )


@check("buffer")
def check_buffer_constructed(target: Target, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """buffer: ``CpuGpuBuffer(*args, **kwargs)`` as a user writes it (``with_numpy`` left to its documented default, sizes as
    numpy integers...) is what :func:`check_buffer_init` asks of a buffer of the same spec.

    ``kwargs`` must hold ``dtype``, ``device`` and ``pin_memory`` (a spec names
    ``pin_memory`` explicitly: vLLM <= 0.21 requires it).
    """
    device = torch.device(kwargs["device"])
    spec = {
        "size": tuple(int(a) for a in args),
        "dtype": kwargs["dtype"],
        "pin_memory": kwargs["pin_memory"],
        "with_numpy": kwargs.get("with_numpy", True),
    }
    call = constructor_call(target, args, kwargs)
    try:
        with contexts.entered():
            buf = target.buffer_cls(*args, **kwargs)  # type: ignore[misc]
    except Exception as exc:  # noqa: BLE001 - a valid construction must not raise
        fail(
            "buffer",
            "a valid CpuGpuBuffer construction raised",
            got=f"{type(exc).__name__}: {str(exc)[:200]}",
            expected="a buffer",
            call=call,
        )
    return _judge_built(target, buf, spec, device, call)


def _judge_built(target: Target, buf: Any, spec: dict[str, Any], device: torch.device, call: str) -> Any:
    size = tuple(spec["size"])
    for name, t, dev in (("cpu", buf.cpu, torch.device("cpu")), ("gpu", buf.gpu, device)):
        if tuple(t.shape) != size or t.dtype != spec["dtype"]:
            fail(
                "buffer",
                f".{name} shape/dtype",
                got=(tuple(t.shape), t.dtype),
                expected=(size, spec["dtype"]),
                call=call,
            )
        if t.device.type != dev.type or (dev.type == "cuda" and t.device.index != dev.index):
            fail("buffer", f".{name} device", got=t.device, expected=dev, call=call)
    synchronize()
    for name, t in (("cpu", buf.cpu), ("gpu", buf.gpu)):
        if t.numel() and _bytes(t).any():
            fail(
                "buffer",
                f".{name} is not zero-initialised",
                got=f"{int((_bytes(t) != 0).sum())} non-zero bytes",
                expected="all zero",
                call=call,
            )
    want_pinned = bool(spec["pin_memory"]) and target.pin_memory_available()
    # A zero-byte tensor has no allocation, so torch reports it unpinned whatever was asked.
    if torch.cuda.is_available() and buf.cpu.numel() and buf.cpu.is_pinned() != want_pinned:
        fail("buffer", ".cpu pinned-ness", got=buf.cpu.is_pinned(), expected=want_pinned, call=call)
    if spec["with_numpy"]:
        arr = buf.np
        if not isinstance(arr, np.ndarray) or arr.shape != size:
            fail("buffer", ".np shape", got=getattr(arr, "shape", type(arr)), expected=size, call=call)
        # .np is .cpu's own numpy view, of its dtype (held-out round r47 gave a bool buffer a uint8 view, through
        # which a 2 reached .cpu as a bool byte other than 0 and 1)
        want_np = buf.cpu.numpy().dtype
        if arr.dtype != want_np:
            fail("buffer", ".np dtype", got=str(arr.dtype), expected=f"{want_np} (.cpu.numpy()'s dtype)", call=call)
        if buf.cpu.numel():
            before = buf.cpu.clone()
            flat = arr.reshape(-1)
            flat[-1] = flat[-1] + 1 if arr.dtype != np.bool_ else not flat[-1]
            if torch.equal(buf.cpu, before):
                fail(
                    "buffer",
                    "a write through .np is not visible in .cpu",
                    got="no change",
                    expected=".np aliases .cpu",
                    call=call,
                )
            buf.cpu.copy_(before)
    else:
        try:
            arr = buf.np
        except AttributeError:
            pass
        else:  # vLLM documents "AttributeError if self.np is accessed when with_numpy=False"
            fail("buffer", "with_numpy=False: .np", got=f"{type(arr).__name__}", expected="AttributeError", call=call)
    return buf
