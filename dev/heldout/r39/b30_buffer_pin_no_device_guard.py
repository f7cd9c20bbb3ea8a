"""b30 (GPU-only, two GPUs, buffer.py ``CpuGpuBuffer.__init__``): the pinned ``.cpu`` is allocated without making the buffer's device current: a buffer on ``cuda:1`` creates a CUDA context (and the caching host allocator's state) on ``cuda:0``.

What changed: ``guard = torch.cuda.device(device) if device.type == "cuda" else
contextlib.nullcontext()`` became ``guard = contextlib.nullcontext()``.

Why an engineer would write it: pinned host memory is "host memory, usable from every
device" (UVA maps it into all of them), so switching devices around a host allocation
looks like ceremony, and it costs a ``cudaSetDevice`` pair per buffer. But
``cudaHostAlloc`` runs in the *current* device's context and creates it if needed: a
process whose work is all on ``cuda:1`` gets a primary context (~500 MiB) on ``cuda:0``.

Promise broken: docs/reference.md: "Several GPUs: pinned memory for a non-current device
is allocated with that device current, so no CUDA context appears on the current one";
docs/contracts.md device-hygiene: "calls aimed at one non-primary device ``cuda:K`` (...
a pinned ``CpuGpuBuffer`` on ``cuda:K`` and both its copies) create no CUDA context and
allocate nothing on any other device"; the constructor's own comment.

Smallest input (two GPUs, a fresh process, nothing touching ``cuda:0``):
``CpuGpuBuffer(4, dtype=torch.int32, device='cuda:1', pin_memory=True)``, then count the
contexts per device (``nvidia-smi --query-compute-apps=pid,gpu_uuid`` or NVML's
``nvmlDeviceGetComputeRunningProcesses``; ``torch.cuda.memory.list_gpu_processes(0)``).

Reference result: this process appears on GPU 1 only.
Bug result: it appears on GPU 0 as well (a context created by the pinned allocation).
With one GPU (or on a CPU-only host, where the guard is never taken) there is no
difference.
"""

from __future__ import annotations

import contextlib
import operator

import numpy as np
import torch

from h2d_contracts.contracts import Target
from h2d_contracts.h2d_impl import buffer

from ._common import buffer_utils_ns, make_target, rebind


def __init__(
    self,
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
    # BUG: was `torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()`: "pinned host memory
    # belongs to no device", so no device switch around the allocation
    guard = contextlib.nullcontext()
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
    """The reference buffer with the ``__init__`` above."""


CpuGpuBuffer.__init__ = rebind(__init__, buffer)  # type: ignore[method-assign]


def target() -> Target:
    return make_target("b30_buffer_pin_no_device_guard", buffer_cls=CpuGpuBuffer, buffer_utils=buffer_utils_ns())
