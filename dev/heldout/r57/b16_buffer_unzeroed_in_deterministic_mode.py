"""b16 (CPU): in deterministic mode ``CpuGpuBuffer`` allocates with ``torch.empty``, counting on torch's fill of uninitialised memory to zero it.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.__init__`` (the ``.cpu`` and ``.gpu`` allocations).

Change: a second pass saved ("with ``torch.use_deterministic_algorithms(True)`` torch fills uninitialised memory
itself (``torch.utils.deterministic.fill_uninitialized_memory``, on by default): zeroing the buffer after that is
a second pass over a large pinned allocation; allocate with ``torch.empty`` then")::

    self.cpu = torch.zeros(size, dtype=dtype, device="cpu", pin_memory=...)                  # reference
    self.gpu = torch.zeros(size, dtype=dtype, device=device)

    filled = torch.are_deterministic_algorithms_enabled() and torch.utils.deterministic.fill_uninitialized_memory
    alloc = torch.empty if filled else torch.zeros                                           # bug
    self.cpu = alloc(size, dtype=dtype, device="cpu", pin_memory=...)
    self.gpu = alloc(size, dtype=dtype, device=device)

Torch's fill is deterministic, not zero: it writes NaN into floating-point tensors and the dtype's largest
value into integer ones, so that a read of uninitialised memory shows. A buffer made by an engine running
reproducibly (vLLM's batch-invariant mode switches deterministic algorithms on) starts with NaN positions or
``2147483647`` token ids in every row the step does not write, and ``copy_to_gpu()`` (all rows) sends them. Outside
deterministic mode nothing changes.

Promise broken: h2d_impl/buffer.py ``CpuGpuBuffer``: "A zero-initialised host buffer (``.cpu``, ``.np``) and its device twin
(``.gpu``)"; docs/reference.md: "``CpuGpuBuffer(...)``: zero-initialised" and, Calling contexts,
"``torch.use_deterministic_algorithms(True)``: the same results"; docs/contracts.md, buffer: "``.cpu`` and ``.gpu`` ... are
zero-initialised".

Smallest input: ``torch.use_deterministic_algorithms(True); b = CpuGpuBuffer(2, dtype=torch.int32, device='cpu');
b.cpu, b.gpu``.
Reference: ``tensor([0, 0], dtype=torch.int32)`` twice. Bug: ``tensor([2147483647, 2147483647], dtype=torch.int32)``
twice (float32: ``[nan, nan]``).
"""

from __future__ import annotations

import contextlib
import operator
from typing import Any

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer

# ruff: noqa: F821  (the reference module's globals: check_dtype_arg, pin_memory_available, _NUMPY_DTYPES)


def __init__(
    self: Any,
    *size: int,
    dtype: torch.dtype,
    device: torch.device | str,
    pin_memory: bool | None = None,
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
    from h2d_contracts.h2d_impl.h2d import _resolve_device  # local: h2d imports this package's helpers

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
            # deterministic mode makes torch fill uninitialised memory itself
            # (torch.utils.deterministic.fill_uninitialized_memory): zeroing again is a second pass over the buffer
            filled = (
                torch.are_deterministic_algorithms_enabled() and torch.utils.deterministic.fill_uninitialized_memory
            )
            alloc = torch.empty if filled else torch.zeros  # BUG (r57 b16): torch fills NaN and the max int, not 0
            self.cpu = alloc(size, dtype=dtype, device="cpu", pin_memory=bool(pin_memory) and pin_memory_available())
        self.gpu = alloc(size, dtype=dtype, device=device)
    except (RuntimeError, OverflowError, TypeError) as exc:
        raise ValueError(f"size={size} with dtype={dtype} cannot be allocated: {str(exc).splitlines()[0]}") from exc
    self._np = self.cpu.numpy() if with_numpy else None


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    __init__ = rebind(__init__, buffer)


def target() -> Target:
    f = fork("b16")
    return make_target(
        "b16_buffer_unzeroed_in_deterministic_mode",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b16"),
    )
