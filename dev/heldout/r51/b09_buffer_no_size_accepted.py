"""b09 (CPU): ``CpuGpuBuffer`` with no size at all builds a 0-d buffer instead of raising ``ValueError``.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.__init__``.

Change (the up-front check removed, "the loop below validates every size")::

    if not size:
        raise ValueError("CpuGpuBuffer needs at least one size argument (the row capacity)")   # reference: removed

The per-dimension loop validates every size given, but an empty ``size`` has none to
validate: ``torch.zeros(())`` makes a 0-d ``.cpu``/``.gpu``/``.np``, a buffer with no row
dimension. It has no ``capacity`` (``IndexError: tuple index out of range`` from
``.cpu.shape[0]``), so every later ``copy_to_gpu(n)`` with an ``n`` fails with an error naming
nothing, while ``copy_to_gpu()`` copies its one element. A typo such as
``CpuGpuBuffer(*shape)`` with an empty ``shape`` is no longer caught where it is made.

Promise broken: h2d_impl/buffer.py ``CpuGpuBuffer`` docstring: "*size: the shape, at least one
non-negative int; dimension 0 is the row (capacity) dimension" and Raises: "ValueError: no
size, a negative size ..."; docs/contracts.md, buffer: "bad constructor arguments raise
`TypeError`/`ValueError` naming one of `size`, ...".

Smallest input: ``CpuGpuBuffer(dtype=torch.int32, device='cpu').cpu``.
Reference: ``ValueError: CpuGpuBuffer needs at least one size argument (the row capacity)``.
Bug: ``tensor(0, dtype=torch.int32)`` (0-d; ``.capacity`` raises ``IndexError``).
"""

from __future__ import annotations

import contextlib
import operator

import numpy as np
import torch
from plumbing import bu_fork, fork, make_target, rebind

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer


def __init__(
    self: buffer.CpuGpuBuffer,
    *size: int,
    dtype: torch.dtype,
    device: torch.device | str,
    pin_memory: bool | None = None,
    with_numpy: bool = True,
) -> None:
    # BUG (r51 b09): no check that a size was given (the loop validates each one it gets)
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
    from .h2d import _resolve_device  # local: h2d imports this package's helpers (resolved in buffer's globals)

    device = _resolve_device(device)
    if pin_memory is not None and not isinstance(pin_memory, (bool, np.bool_)):
        raise TypeError(f"pin_memory must be a bool or None, got {pin_memory!r}")
    if not isinstance(with_numpy, (bool, np.bool_)):
        raise TypeError(f"with_numpy must be a bool, got {with_numpy!r}")
    if with_numpy and dtype not in _NUMPY_DTYPES:
        raise ValueError(
            f"dtype={dtype} has no numpy equivalent, so .np cannot be made: create the buffer with with_numpy=False"
        )
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


class CpuGpuBuffer(buffer.CpuGpuBuffer):
    __doc__ = buffer.CpuGpuBuffer.__doc__
    __init__ = rebind(__init__, buffer)


def target() -> Target:
    f = fork("b09")
    return make_target(
        "b09_buffer_no_size_accepted",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b09"),
    )
