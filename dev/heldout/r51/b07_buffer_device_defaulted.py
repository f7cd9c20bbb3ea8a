"""b07 (CPU): ``CpuGpuBuffer`` with ``device=None`` builds on the platform's device (as ``NonUvaBuffer`` does) instead of raising ``TypeError``.

Where: ``h2d_impl/buffer.py::CpuGpuBuffer.__init__``.

Change (the refusal replaced by a default)::

    if device is None:
        raise TypeError("device is required: ...")                   # reference
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"      # bug: "as NonUvaBuffer and vLLM's platform default"

Borrowed from the sibling class ``buffer_utils.NonUvaBuffer`` (whose ``device`` is optional),
this makes a missing device silently the current platform's: on a CPU host ``.gpu`` is a
host tensor, on a GPU host the current CUDA device's, whatever the caller meant (a
``device=self.device`` whose attribute was never set goes unnoticed). Every buffer given a
device is unchanged.

Promise broken: h2d_impl/buffer.py ``CpuGpuBuffer`` docstring: "device: the device of ``.gpu``
..., keyword-only, required" and Raises: "TypeError: ... a missing device"; docs/contracts.md,
buffer: "bad constructor arguments raise `TypeError`/`ValueError` naming one of `size`,
`dtype`, `device`, `pin_memory`, `with_numpy`".

Smallest input: ``CpuGpuBuffer(2, dtype=torch.int32, device=None).gpu``.
Reference: ``TypeError: device is required: pass 'cuda', 'cuda:1', a torch.device or 'cpu'``.
Bug: ``tensor([0, 0], dtype=torch.int32)`` (on the host).
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
    if device is None:  # BUG (r51 b07): a platform default for a required argument
        device = "cuda" if torch.cuda.is_available() else "cpu"
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
    f = fork("b07")
    return make_target(
        "b07_buffer_device_defaulted",
        fn=f.h2d.async_tensor_h2d,
        cpu_variant=f.h2d.async_tensor_h2d_cpu,
        empty_cache=f.staging.empty_staging_cache,
        buffer_cls=CpuGpuBuffer,
        buffer_utils=bu_fork("b07"),
    )
