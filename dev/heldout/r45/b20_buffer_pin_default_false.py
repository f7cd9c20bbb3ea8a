"""b20 (GPU-only) - ``CpuGpuBuffer``'s ``pin_memory`` defaults to ``False`` instead of ``None`` ("when available").

Where: ``CpuGpuBuffer.__init__`` (the signature's default).

Change (old -> new)::

    def __init__(self, *size, dtype, device, pin_memory: bool | None = None, with_numpy: bool = True):
    ->
    def __init__(self, *size, dtype, device, pin_memory: bool | None = False, with_numpy: bool = True):  # BUG

Why an engineer writes it: porting the signature to vLLM's, where ``pin_memory`` is an explicit
argument and every call site passes ``is_pin_memory_available()``; "explicit is better than
implicit", and a ``False`` default "cannot fail on hosts without pinning". The body is
untouched (``None`` still means "when available"), so any call that passes ``pin_memory``
explicitly behaves exactly as before; only the default changed.

Promise broken (one CUDA device): the class docstring ("pin_memory: ... Default:
:func:`pin_memory_available`") and docs/reference.md "What it promises"
(``CpuGpuBuffer(*size, dtype, device, pin_memory=None, with_numpy=True)``: "``.cpu`` pinned when
asked and available"; the Zero-copy hazard paragraph and "Which pattern when" rely on a pinned
``.cpu``), docs/contracts.md "non-blocking" (``prop_buffer_non_blocking``: ``copy_to_gpu(n)`` /
``copy_to_cpu(n)`` return while queued work still runs).

What a CUDA run shows: ``b = CpuGpuBuffer(1 << 22, dtype=torch.int32, device="cuda:0")`` (no
``pin_memory``): reference ``b.cpu.is_pinned()`` is ``True``, bug ``False``; behind
``torch.cuda._sleep`` of 100 ms, ``b.copy_to_gpu()`` returns at once in the reference (a DMA
from pinned memory) and only after the queued work has finished in the bug (a copy from
pageable memory synchronises with the stream).

Smallest input: CUDA-only (see above). On the CPU, ``CpuGpuBuffer(2, dtype=torch.int32,
device="cpu").cpu.is_pinned()`` is ``False`` for both (pinning is unavailable).
"""

from __future__ import annotations

import contextlib
import operator

import numpy as np
import torch
from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer as _buffer
from h2d_contracts.h2d_impl.buffer import CpuGpuBuffer
from plumbing import fork, fork_target_full, rebind


def __init__(
    self,
    *size: int,
    dtype: torch.dtype,
    device: torch.device | str,
    pin_memory: bool | None = False,  # BUG: was None (= pin_memory_available())
    with_numpy: bool = True,
) -> None:
    if not size:
        raise ValueError("CpuGpuBuffer needs at least one size argument (the row capacity)")
    for i, s in enumerate(size):
        if isinstance(s, bool) or not isinstance(s, int):
            try:
                if isinstance(s, bool):
                    raise TypeError
                operator.index(s)
            except TypeError:
                raise TypeError(f"size[{i}] must be an int, got {s!r}") from None
        if operator.index(s) < 0:
            raise ValueError(f"size[{i}]={s} is negative")
    size = tuple(operator.index(s) for s in size)
    check_dtype_arg(dtype)
    if dtype is None:
        raise TypeError("dtype is required: pass a torch.dtype such as torch.int32")
    if device is None:
        raise TypeError("device is required: pass 'cuda', 'cuda:1', a torch.device or 'cpu'")
    from .h2d import _resolve_device  # local: h2d imports this package's helpers

    device = _resolve_device(device)
    if pin_memory is not None and not isinstance(pin_memory, (bool, np.bool_)):
        raise TypeError(f"pin_memory must be a bool or None, got {pin_memory!r}")
    if not isinstance(with_numpy, (bool, np.bool_)):
        raise TypeError(f"with_numpy must be a bool, got {with_numpy!r}")
    if with_numpy and dtype not in _NUMPY_DTYPES:
        raise ValueError(
            f"dtype={dtype} has no numpy equivalent, so .np cannot be made: create the buffer with with_numpy=False"
        )
    # Pinned memory is allocated through the current device's CUDA context: make the
    # buffer's device current for it, or a buffer on cuda:1 creates a context on cuda:0
    # (the device-hygiene contract checks it).
    guard = torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()
    try:
        with guard:
            if pin_memory is None:
                pin_memory = pin_memory_available()
            self.cpu = torch.zeros(
                size, dtype=dtype, device="cpu", pin_memory=bool(pin_memory) and pin_memory_available()
            )
        self.gpu = torch.zeros(size, dtype=dtype, device=device)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None


def target() -> Target:
    buf = type("CpuGpuBuffer", (CpuGpuBuffer,), {"__module__": __name__, "__init__": rebind(__init__, _buffer)})
    return fork_target_full("b20_buffer_pin_default_false", fork("b20"), buffer_cls=buf)
